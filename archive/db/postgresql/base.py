"""Django's PostgreSQL backend whose connection health check looks at the socket instead of asking the server.

With CONN_HEALTH_CHECKS, Django asks `is_usable()` before a persistent
connection's first query of each request, and the stock backend answers by
sending `SELECT 1`: one round trip per request, about a tenth of a small API
answer under load. A session between requests is idle, and its server sends
nothing until it is asked, except to end it: a restart, `pg_terminate_backend`,
an idle timeout or a failover writes a last message and closes the socket.
So an idle connection with anything to read is one the server has ended (or
spoke to unasked), and it is closed and opened again; one with nothing to
read is used. Looking costs one `poll` and sends nothing.

What it cannot see, as `SELECT 1` could: a server gone without closing the
socket (a host powered off, a network cut). `SELECT 1` would then hang until
the kernel gave up; here the request's own query does, and fails as it
would have without any check.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import ConnStatus, TransactionStatus

# Between requests a connection is idle (or inside a transaction a test holds open); anything else is unusable.
_USABLE = {TransactionStatus.IDLE, TransactionStatus.INTRANS}
# POLLRDHUP (the peer closed its end) is Linux's; elsewhere the end of the stream shows as POLLIN.
_SERVER_SPOKE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP | getattr(select, "POLLRDHUP", 0)


def server_spoke(socket: int) -> bool:
    """Whether anything (a message, or the end of the stream) waits to be read on `socket`, without waiting."""
    poller = select.poll()
    poller.register(socket, _SERVER_SPOKE)
    return bool(poller.poll(0))


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None or self.connection.closed:
            return False
        pgconn = self.connection.pgconn
        if pgconn.status != ConnStatus.OK or pgconn.transaction_status not in _USABLE:
            return False
        return not server_spoke(pgconn.socket)
