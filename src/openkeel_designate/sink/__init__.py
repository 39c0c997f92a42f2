"""designate-sink: Nova and Neutron notifications turned into managed records.

``service.Sink`` consumes with oslo.messaging; ``endpoint`` hands each event to the asyncio loop;
``nova_fixed`` and ``neutron_floatingip`` decide; ``central.managed`` writes.
"""
