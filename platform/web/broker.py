"""The embedded Celery broker: kombu's filesystem transport with atomic reads and writes.

``make run`` without ``REDIS_URL`` runs web, worker, periodic worker, live worker and beat
as separate processes that share one folder of message files (``var/broker/``). kombu's own
filesystem transport is not safe for that:

- ``_put`` creates the message file empty, then locks and writes it, while ``_get`` moves
  and reads files without taking the lock. A worker polling between the creation and the
  write reads an empty file and dies with ``JSONDecodeError`` ("Unrecoverable error"),
  which took the whole ``make run`` stack down every 10-20 minutes while beat sent tasks.
- The exchange tables in the control folder are created the same way (empty first), and
  every publish reads them, so a process starting up could break another one's publish.

This transport keeps kombu's file layout and polling but never lets a reader see a file
being written:

- a message is written whole into ``staging/`` and then renamed into the queue folder
  (``os.replace`` is atomic within one file system), so a listed file is always complete;
- a reader claims a message by renaming it into ``claimed/``: exactly one process wins,
  the others get ``FileNotFoundError`` and move on;
- a message that still cannot be decoded (a file left half-written by a crash of an older
  version, or written by hand) is moved to ``rejected/`` with a log line instead of
  killing the worker;
- exchange tables are updated under an exclusive lock on ``control/.lock`` and written
  the same way (whole, then renamed), so readers need no lock at all.

Selected with ``CELERY_BROKER_TRANSPORT = "web.broker:Transport"`` (config/settings.py);
``tests/platform/test_embedded_broker.py`` races several processes through it, and
``bench/soak_embedded.py`` runs the whole embedded stack for half an hour.
"""

from __future__ import annotations

import logging
import os
import uuid
from contextlib import contextmanager
from pathlib import Path
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, virtual
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads
from kombu.utils.objects import cached_property

try:  # POSIX; the embedded stack is only run on Linux and macOS.
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

logger = logging.getLogger(__name__)

Empty = virtual.Empty


def write_atomically(path: Path | str, data: bytes, staging: Path | str) -> None:
    """Write ``data`` to ``path`` so that no reader ever sees a partial file."""
    tmp = os.path.join(staging, f".{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class Channel(filesystem.Channel):
    """A filesystem channel whose files appear whole and are claimed by one reader."""

    def _sibling(self, option: str, name: str) -> str:
        folder = self.transport_options.get(option) or os.path.join(os.path.dirname(self.data_folder_in), name)
        os.makedirs(folder, exist_ok=True)
        return folder

    @cached_property
    def staging_folder(self) -> str:
        return self._sibling("staging_folder", "staging")

    @cached_property
    def claimed_folder(self) -> str:
        return self._sibling("claimed_folder", "claimed")

    @cached_property
    def rejected_folder(self) -> str:
        return self._sibling("rejected_folder", "rejected")

    # ------------------------------------------------------------------ messages

    def _put(self, queue, payload, **kwargs):
        filename = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        try:
            write_atomically(os.path.join(self.data_folder_out, filename), str_to_bytes(dumps(payload)),
                             self.staging_folder)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {filename!r} to directory") from exc

    def _get(self, queue):
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(self.data_folder_in)):
            if filename.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(self.claimed_folder, filename)
            try:
                os.rename(os.path.join(self.data_folder_in, filename), claimed)
            except FileNotFoundError:
                continue  # another process claimed it first
            try:
                with open(claimed, "rb") as f:
                    payload = f.read()
            except OSError as exc:
                raise ChannelError(f"Cannot read file {claimed!r} from queue.") from exc
            try:
                message = loads(bytes_to_str(payload))
            except (ValueError, UnicodeDecodeError):
                os.replace(claimed, os.path.join(self.rejected_folder, filename))
                logger.error("embedded broker: message %s on queue %s is not valid JSON (%d bytes); "
                             "moved to %s", filename, queue, len(payload), self.rejected_folder)
                continue
            os.remove(claimed)
            return message
        raise Empty()

    # ------------------------------------------------------------------ exchange tables

    @contextmanager
    def _control_lock(self):
        self.control_folder.mkdir(parents=True, exist_ok=True)
        with open(self.control_folder / ".lock", "a") as f:
            if fcntl is not None:
                fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                if fcntl is not None:
                    fcntl.flock(f, fcntl.LOCK_UN)

    def _read_table(self, file: Path) -> list:
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc
        try:
            return [filesystem.exchange_queue_t(*q) for q in loads(bytes_to_str(data))]
        except (ValueError, TypeError):
            # Only an exchange file from kombu's own transport can be partial; the next
            # bind writes it whole again.
            logger.warning("embedded broker: exchange table %s unreadable; treated as empty", file)
            return []

    def _write_table(self, file: Path, queues: list) -> None:
        write_atomically(file, str_to_bytes(dumps(queues)), self.control_folder)

    def get_table(self, exchange):
        return self._read_table(self._exchange_file(exchange))

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        file = self._exchange_file(exchange)
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with self._control_lock():
            queues = self._read_table(file)
            if entry not in queues:
                self._write_table(file, [entry, *queues])

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        virtual.Channel._delete(self, queue, exchange, routing_key, pattern, *args, **kwargs)
        file = self._exchange_file(exchange)
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with self._control_lock():
            queues = self._read_table(file)
            if entry in queues:
                self._write_table(file, [q for q in queues if q != entry])


class Transport(filesystem.Transport):
    """kombu's filesystem transport with :class:`Channel`'s atomic file handling."""

    Channel = Channel


__all__ = ["Channel", "Transport", "write_atomically"]
