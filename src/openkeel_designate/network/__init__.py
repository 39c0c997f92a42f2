"""Clients of the other OpenStack services Designate asks about resources (Neutron)."""
