"""Writing output files so that a failure never leaves an empty or half-written one.

The data goes to a hidden temporary file next to the target, which is then renamed over
it. A process killed mid-write (``kill -9``) cannot remove its temporary file, so the name
carries the writer's process id, and the next write to the same target removes the ones
whose writer is gone.
"""
import glob
import os
import tempfile


def atomic_write(path, data: bytes) -> None:
    """Write to a temporary file next to ``path``, then rename it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    prefix = _temp_prefix(path)
    _remove_stranded(directory, prefix)
    fd, tmp = tempfile.mkstemp(prefix=f"{prefix}{os.getpid()}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would make the picture private
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


def _remove_stranded(directory, prefix) -> None:
    """Temporary files of this target left by writers that no longer run."""
    for stranded in glob.glob(os.path.join(glob.escape(directory), glob.escape(prefix) + "*.tmp")):
        pid = os.path.basename(stranded)[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            try:
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


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
