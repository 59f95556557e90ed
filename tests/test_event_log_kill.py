"""The event log under real crashes: tail repair and the single-writer lock, with real processes.

A writer process is killed with SIGKILL at random moments while it appends large records (a kill can land inside a
`write`, leaving a torn tail), and once deliberately after writing half a record. Every reopen must return a clean
prefix of what was written, leave the file ending in a full line, and take the lock a dead holder left behind.
"""
import os, random, signal, subprocess, sys, textwrap, time
from pathlib import Path
import pytest
from gpu_forecasters.search.events import FileEventLog, MutationCompleted, RunDirectoryLocked, read_events

ROOT = Path(__file__).resolve().parents[1]

WRITER = textwrap.dedent('''
    import os, signal, sys
    from gpu_forecasters.search.events import FileEventLog, MutationCompleted, encode_event
    path, size, torn_after = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    log = FileEventLog(path)
    i = len(log.open())
    print("open", i, log.dropped_bytes, flush=True)
    while True:
        e = MutationCompleted(step=0, request_id=f"s0-p0-c{i}", code="1" * size, code_hash=f"h{i}", usage=None)
        if i == torn_after:  # die in the middle of a record, as a crash inside write() would
            data = encode_event(e)
            os.write(log._fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        log.append(e)
        i += 1
''')

def _writer(path, size=0, torn_after=-1):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(size), str(torn_after)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)

def _check_prefix(path) -> int:
    "The log is a clean prefix: ids 0..n-1 in order, ending in a newline. Returns n."
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n")
    ids = [e.request_id for e in read_events(path)]
    assert ids == [f"s0-p0-c{i}" for i in range(len(ids))]
    return len(ids)

def test_sigkill_mid_append_then_resume(tmp_path):
    path = tmp_path / "events.jsonl"
    rng = random.Random(0)
    total = 0
    for _ in range(6):
        proc = _writer(path, size=2_000_000)
        line = proc.stdout.readline().split()
        assert line[0] == "open" and int(line[1]) == total
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with FileEventLog(path) as log:  # the dead holder's lock is free; a torn tail is repaired
            events = log.open()
        n = _check_prefix(path)
        assert len(events) == n >= total
        total = n
    assert total > 0

def test_torn_record_is_dropped_on_reopen(tmp_path):
    path = tmp_path / "events.jsonl"
    proc = _writer(path, size=10, torn_after=3)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    raw = path.read_bytes()
    assert not raw.endswith(b"\n")
    assert len(read_events(path)) == 3  # readers ignore the torn tail and do not write
    assert path.read_bytes() == raw
    proc = _writer(path, size=10)  # a resumed writer repairs the tail and continues from record 3
    line = proc.stdout.readline().split()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert line[:2] == ["open", "3"] and int(line[2]) > 0
    assert _check_prefix(path) >= 3

def test_live_holder_blocks_a_second_writer(tmp_path):
    path = tmp_path / "events.jsonl"
    proc = _writer(path, size=10)
    try:
        assert proc.stdout.readline().startswith("open")
        with pytest.raises(RunDirectoryLocked) as err:
            FileEventLog(path).open()
        assert err.value.pid == proc.pid
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with FileEventLog(path) as log:
        assert len(log.open()) == _check_prefix(path)
