"""The embedded filesystem broker never shows a worker a half-written message."""

from pathlib import Path

from kombu import Connection

import fivex_site.broker
from fivex_site.celery import app  # noqa: F401 - registers our transport for filesystem://


def test_filesystem_url_uses_the_atomic_transport(tmp_path: Path) -> None:
    with Connection("filesystem://") as conn:
        assert conn.transport_cls == "filesystem"
        assert isinstance(conn.transport, fivex_site.broker.Transport)


def test_message_file_appears_only_when_complete(tmp_path: Path, monkeypatch) -> None:
    # Regression: kombu wrote "<time>_<id>.<queue>.msg" in place, so a polling worker could
    # read it empty and die with JSONDecodeError.
    visible_while_writing: list[list[str]] = []
    real = fivex_site.broker.str_to_bytes

    def spy(text: str) -> bytes:
        visible_while_writing.append([p.name for p in folder.glob("*.jobs.msg")])
        return real(text)

    monkeypatch.setattr(fivex_site.broker, "str_to_bytes", spy)
    folder = tmp_path / "queue"
    folder.mkdir()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(tmp_path / "control"),
    }
    with Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("jobs")
        queue.put({"n": 1})
        queue.put({"n": 2})
        # While a message is being written only the messages finished before it are visible.
        assert [len(names) for names in visible_while_writing] == [0, 1]
        received = [queue.get(timeout=1) for _ in range(2)]
        assert [message.payload for message in received] == [{"n": 1}, {"n": 2}]
        for message in received:
            message.ack()
        queue.close()
    assert list(folder.iterdir()) == []  # no partial files left behind


def test_many_messages_all_arrive(tmp_path: Path) -> None:
    count = 50
    options = {
        "data_folder_in": str(tmp_path),
        "data_folder_out": str(tmp_path),
        "control_folder": str(tmp_path / "control"),
    }
    with Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("bulk")
        for n in range(count):
            queue.put({"n": n})
        received = [queue.get(timeout=1) for _ in range(count)]
        for message in received:
            message.ack()
        got = [message.payload["n"] for message in received]
        queue.close()
    # Regression: names carried whole milliseconds then a uuid, so messages written in
    # the same millisecond came out in random order. Fifty quick puts stay in order.
    assert got == list(range(count))
