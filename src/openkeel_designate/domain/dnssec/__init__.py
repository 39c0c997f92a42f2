"""DNSSEC signing as pure functions over dnspython objects: keys, RRSIGs, the NSEC/NSEC3 chain.

No I/O here: storage keeps the (encrypted) keys, mdns renders the signed zone with these.
"""
