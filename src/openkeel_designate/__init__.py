"""OpenKeel Designate.

oslo.messaging (notifications, sink) pulls in oslo.service's eventlet backend, and eventlet's
greendns re-imports dnspython under new module objects: every ``dns.rdata.Rdata`` made before no
longer passes dnspython's own isinstance checks (zone imports failed with "add(): expected an
Rdata"). We never use eventlet's resolver, so it is switched off before anything can import it.
"""

import os

os.environ.setdefault("EVENTLET_NO_GREENDNS", "yes")
