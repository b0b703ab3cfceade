//! The Python half of the pty tests (Python's `pty` module drives the clawtop binary under a
//! real terminal): the parts every driver shares. A driver is its own setup (imports, fork,
//! exec), [`WAIT_FOR`], its steps, and [`FINISH`]; see [`driver`].

/// `out` (everything the program wrote) and `wait_for(needle, start, timeout=60)`: the
/// position just after `needle` once it appears at or after `start`, or -1 (timeout, EOF).
pub const WAIT_FOR: &str = r#"
out = b""
def wait_for(needle, start, timeout=60):
    global out
    deadline = time.time() + timeout
    while time.time() < deadline:
        i = out.find(needle, start)
        if i >= 0:
            return i + len(needle)
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return -1
            if not chunk:
                return -1
            out += chunk
    return -1
"#;

/// After the driver wrote its quit key: reaps the child (killed after 20 s), adds the tail of
/// what it wrote when a step failed (or what the driver's own `dump()` picks), and prints
/// `steps` with the exit code as JSON.
pub const FINISH: &str = r#"
status = None
deadline = time.time() + 20
while time.time() < deadline:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        break
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            out += os.read(fd, 65536)
        except OSError:
            pass
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
if not all(steps.values()):
    # A driver may say which part of the output explains a failed step (its `dump`).
    if "dump" in globals():
        dump()
    else:
        steps["tail"] = out[-3000:].decode("latin-1")
steps["code"] = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
print(json.dumps(steps))
"#;

/// The whole Python program from its parts, in order.
pub fn driver(parts: &[&str]) -> String {
    parts.concat()
}
