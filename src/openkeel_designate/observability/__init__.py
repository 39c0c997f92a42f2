"""What operators watch: Prometheus metrics, probes, request logs.

A bottom-level package: api, central, worker, mdns and the nameserver record into it; it imports
nothing of theirs.  Roles record numbers, never format them; the listener (``listener.py``)
serves the registry and the probes from a thread of each process.
"""
