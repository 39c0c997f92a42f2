"""ExternalDNS's webhook provider, served by ``serve`` as the ``externaldns`` role (issue 14).

ExternalDNS (kubernetes-sigs/external-dns, ``--provider=webhook``) lists records with
``GET /records`` and applies a plan with ``POST /records``; this package answers those calls for
one project's zones by calling central in process, so one ``POST /records`` becomes one change
batch per zone (``central/changes.py``), applied all or nothing.

``wire`` reads and writes ExternalDNS's JSON (pure), ``targets`` maps record data between
ExternalDNS's form and Designate's (pure), ``batches`` turns a plan into change batches (pure),
``provider`` talks to central, ``app`` is the HTTP side.
"""
