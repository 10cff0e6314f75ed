"""Writing output files so that a failure never leaves an empty or half-written one.

The data goes to a hidden temporary file next to the target, which is then renamed over
it. A process killed mid-write (``kill -9``) cannot remove its temporary file, so the name
carries the writer's process id, and the next write to the same target removes the ones
whose writer is gone. Only names gradviz made are removed: each carries a check of its
other parts, so a user's file that merely looks like one (``.g.png.gradviz-12.x.tmp``) is
never touched.
"""
import glob
import hashlib
import os
import secrets
import stat


def atomic_write(path, data: bytes) -> None:
    """Write to a temporary file next to ``path``, then rename it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    prefix = _temp_prefix(path)
    _remove_stranded(directory, prefix)
    fd, tmp = _create_temp(directory, prefix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _temp_prefix(path) -> str:
    return "." + os.path.basename(path) + ".gradviz-"


def _check(prefix: str, pid: str, nonce: str) -> str:
    """What makes a temporary file's name gradviz's own: a digest of the rest of it."""
    return hashlib.sha256(os.fsencode(f"gradviz temporary file:{prefix}{pid}.{nonce}")).hexdigest()[:12]


def _create_temp(directory, prefix):
    """A new temporary file (fd, path), readable as the target will be (not mkstemp's 0600)."""
    while True:
        pid, nonce = str(os.getpid()), secrets.token_hex(4)
        path = os.path.join(directory, f"{prefix}{pid}.{nonce}.{_check(prefix, pid, nonce)}.tmp")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except FileExistsError:
            continue
        return fd, path


def _ours(name: str, prefix: str):
    """The writer's process id when ``name`` is a temporary file gradviz made, else None."""
    parts = name[len(prefix):-len(".tmp")].split(".")
    if len(parts) != 3 or not parts[0].isdigit() or parts[2] != _check(prefix, parts[0], parts[1]):
        return None
    return int(parts[0])


def _remove_stranded(directory, prefix) -> None:
    """Temporary files of this target left by writers that no longer run."""
    for stranded in glob.glob(os.path.join(glob.escape(directory), glob.escape(prefix) + "*.tmp")):
        pid = _ours(os.path.basename(stranded), prefix)
        if pid is None or _running(pid):
            continue
        try:
            info = os.lstat(stranded)
            if stat.S_ISREG(info.st_mode) and info.st_uid == getattr(os, "getuid", lambda: info.st_uid)():
                os.unlink(stranded)
        except OSError:
            pass


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process, or we cannot tell: leave its file alone
    return True

