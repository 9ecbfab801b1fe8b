"""The tracer behind scripts/walk-figures.sh: which of our files ran during a walk, and which calls crossed from one
of our SwiftPM targets into another. Standard library only, plus lldb's own module inside lldb.

Three uses:
  python3 walk_trace.py table BINARY ROOT OUT.json
      Every function of BINARY (a debug build) with the file its first instruction comes from (llvm-nm, then
      llvm-symbolizer), kept when that file is under ROOT/Sources/: its target is the folder below Sources/.
  lldb --batch -o 'command script import walk_trace.py' -o 'walk-trace'
      Reads WALK_TABLE, WALK_OUT and either WALK_LAUNCH (a JSON argument list; WALK_CWD) or WALK_PID with
      WALK_READY and WALK_DONE (files), sets a breakpoint on the entry of every function in the table, and records
      each hit: the callee, and its caller (the nearest frame above that is not a compiler-generated thunk; lldb
      unwinds async frames to the awaiting function's continuation). Launched: from start to exit. Attached: from
      the moment WALK_READY is written until WALK_DONE appears, then it detaches.
  python3 walk_trace.py report TRACE.json NAME [PHASES]
      Prints the figures of one trace (of the phases given, as 1,2): files, crossings (call events), the distinct
      caller-callee pairs among them, the edges between targets, and what crossed into a store target.
  python3 walk_trace.py summary TRACE.json NAME [PHASES]
      One line: NAME files crossings pairs edges calls, for the table walk-figures.sh prints.
  python3 walk_trace.py browser wait|sign-in|get URL COOKIES
      A browser for the BFF walks: waits until URL answers; signs in at URL (the emulator signs alice in by
      itself, --auto-sign-in) keeping the cookies in the file COOKIES; or GETs URL with them and `X-CSRF: 1`.
"""

import bisect
import json
import os
import re
import subprocess
import sys
import threading
import time

# Continuations of async functions (TQn_, TYn_) and coroutines (.resume.n) are resumptions, not calls.
CONTINUATION = re.compile(r"(T[QY]\d*_|\.resume\.\d+)$")


def build_table(binary, root, out):
    """Writes {file address: [name, file relative to ROOT, target, size, kind]} for our functions (kind "fn", or
    "part" for an async or coroutine continuation) and the compiler's thunks ("thunk")."""
    sources = os.path.realpath(os.path.join(root, "Sources")) + "/"
    nm = subprocess.run(
        ["llvm-nm", "--defined-only", "--print-size", "--no-demangle", binary],
        check=True, capture_output=True, text=True).stdout
    symbols = {}
    for line in nm.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in ("T", "t") and int(parts[1], 16) > 0:
            symbols.setdefault(int(parts[0], 16), (parts[3], int(parts[1], 16)))
    addresses = sorted(symbols)
    symbolized = subprocess.run(
        ["llvm-symbolizer", "--obj=" + binary, "--output-style=JSON", "--no-inlines", "--functions=none"],
        input="".join("0x%x\n" % a for a in addresses), check=True, capture_output=True, text=True).stdout
    table = {}
    for address, line in zip(addresses, symbolized.splitlines()):
        name, size = symbols[address]
        found = json.loads(line).get("Symbol") or [{}]
        path = os.path.realpath(found[0].get("FileName") or "?") if found[0].get("FileName") else ""
        if path.startswith(sources):
            relative = path[len(sources) - len("Sources/"):]
            kind = "part" if CONTINUATION.search(name) else "fn"
            table[address] = [name, relative, relative.split("/")[1], size, kind]
        elif path in ("/<compiler-generated>", "<compiler-generated>"):
            # Thunks (witness, reabstraction, partial application): skipped when looking for a caller. Code with
            # no line table at all is not ours and stays out, so a call from it is no crossing.
            table[address] = [name, "", "", size, "thunk"]
    with open(out, "w") as f:
        json.dump({"binary": binary, "functions": table}, f)
    ours = [v for v in table.values() if v[4] == "fn"]
    print("%s: %d functions of ours in %d files, %d targets" % (
        os.path.basename(binary), len(ours), len({v[1] for v in ours}), len({v[2] for v in ours})))


class Trace:
    """The state of one traced walk, shared with the breakpoint callback."""

    def __init__(self, table):
        self.table = {int(k): v for k, v in table["functions"].items()}
        self.starts = []
        self.entries = []
        self.hits = {}  # callee address -> calls
        self.crossings = {}  # (caller address, callee address) -> calls
        self.unresolved = 0
        self.recording = True
        # Files whose appearance starts the next phase (WALK_MARKS), so that one trace can tell apart, say, an
        # idle server from the request it then serves.
        self.marks = [m for m in os.environ.get("WALK_MARKS", "").split(":") if m]
        self.phase = 0

    def locate(self, slide):
        """Sorted load addresses, for finding the function a caller's pc is in."""
        ordered = sorted(self.table.items())
        self.starts = [address + slide for address, _ in ordered]
        self.entries = [(address, value) for address, value in ordered]

    def function_at(self, pc):
        i = bisect.bisect_right(self.starts, pc) - 1
        if i < 0:
            return None, None
        address, value = self.entries[i]
        return (address, value) if pc < self.starts[i] + value[3] else (None, None)


TRACE = None


def on_hit(frame, location, extra, internal):
    """A function of ours was entered: count it, and the call as a crossing when its caller is ours elsewhere."""
    trace = TRACE
    if not trace.recording:
        return False
    while trace.phase < len(trace.marks) and os.path.exists(trace.marks[trace.phase]):
        trace.phase += 1
    callee = location.GetAddress().GetFileAddress()
    key = (trace.phase, callee)
    trace.hits[key] = trace.hits.get(key, 0) + 1
    thread = frame.GetThread()
    for index in range(1, 8):
        caller = thread.GetFrameAtIndex(index)
        if not caller.IsValid():
            trace.unresolved += 1
            break
        address, value = trace.function_at(caller.GetPC())
        if value is None or value[4] != "thunk":
            if value is not None and value[2] != trace.table[callee][2]:
                key = (trace.phase, address, callee)
                trace.crossings[key] = trace.crossings.get(key, 0) + 1
            break
    return False


def walk_trace(debugger, command, result, internal):
    """The lldb command: trace one walk as the WALK_ variables say, and write the trace."""
    global TRACE
    import lldb

    with open(os.environ["WALK_TABLE"]) as f:
        table = json.load(f)
    TRACE = Trace(table)
    started = time.time()
    # Synchronous: Continue() returns only at a stop no callback declined (or the end), and every breakpoint's
    # callback runs as soon as it is hit.
    debugger.SetAsync(False)
    target = debugger.CreateTarget(table["binary"])
    error = lldb.SBError()
    if "WALK_LAUNCH" in os.environ:
        info = lldb.SBLaunchInfo(json.loads(os.environ["WALK_LAUNCH"]))
        info.SetWorkingDirectory(os.environ.get("WALK_CWD", os.getcwd()))
        info.SetEnvironmentEntries(["%s=%s" % kv for kv in os.environ.items()
                                   if not kv[0].startswith("WALK_") and kv[0] != "LD_LIBRARY_PATH"], False)
        info.SetLaunchFlags(lldb.eLaunchFlagStopAtEntry)
        process = target.Launch(info, error)
    else:
        process = target.AttachToProcessWithID(lldb.SBListener(), int(os.environ["WALK_PID"]), error)
    if not error.Success() or process.GetState() != lldb.eStateStopped:
        raise SystemExit("walk_trace: cannot start or attach: %s" % error)
    # lldb stops the other threads with SIGSTOP when one hits a breakpoint; such a stop is never the walk's.
    signals = process.GetUnixSignals()
    number = signals.GetSignalNumberFromName("SIGSTOP")
    signals.SetShouldStop(number, False)
    signals.SetShouldNotify(number, False)
    signals.SetShouldSuppress(number, True)
    module = target.GetModuleAtIndex(0)
    slide = module.GetObjectFileHeaderAddress().GetLoadAddress(target) - \
        module.GetObjectFileHeaderAddress().GetFileAddress()
    TRACE.locate(slide)
    breakpoints = []
    for address, value in TRACE.table.items():
        if value[4] == "fn":
            bp = target.BreakpointCreateByAddress(address + slide)
            bp.SetScriptCallbackFunction("walk_trace.on_hit")
            breakpoints.append(bp)
    armed = time.time()
    done = os.environ.get("WALK_DONE")
    if done:
        def interrupt_when_done():
            while not os.path.exists(done):
                time.sleep(0.1)
            TRACE.recording = False
            process.SendAsyncInterrupt()
        threading.Thread(target=interrupt_when_done, daemon=True).start()
        open(os.environ["WALK_READY"], "w").close()
    while True:
        process.Continue()
        state = process.GetState()
        if state in (lldb.eStateExited, lldb.eStateCrashed, lldb.eStateDetached, lldb.eStateInvalid):
            break
        if state == lldb.eStateStopped and done and not TRACE.recording:
            for bp in breakpoints:
                target.BreakpointDelete(bp.GetID())
            process.Detach()
            break
        # Any other stop (a signal the program handles) is not the walk's business: go on.
    ended = time.time()
    write_trace(TRACE, os.environ["WALK_OUT"], {
        "arm_seconds": round(armed - started, 1), "walk_seconds": round(ended - armed, 1),
        "exit_status": process.GetExitStatus() if "WALK_LAUNCH" in os.environ else None})


def write_trace(trace, out, timing):
    table = trace.table
    calls = [{"phase": p, "name": table[a][0], "file": table[a][1], "target": table[a][2], "calls": n}
             for (p, a), n in sorted(trace.hits.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    crossings = [{"phase": p, "caller": table[c][0], "caller_target": table[c][2], "callee": table[e][0],
                  "callee_target": table[e][2], "calls": n}
                 for (p, c, e), n in sorted(trace.crossings.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    with open(out, "w") as f:
        json.dump(dict(timing, functions=calls, crossings=crossings, unresolved_callers=trace.unresolved), f, indent=1)


def figures(trace, phases=None):
    """Files, crossings, distinct crossing call sites (caller and callee functions), edges, calls of ours."""
    functions = [c for c in trace["functions"] if phases is None or c["phase"] in phases]
    crossings = [c for c in trace["crossings"] if phases is None or c["phase"] in phases]
    edges = {}
    for c in crossings:
        key = "%s -> %s" % (c["caller_target"], c["callee_target"])
        edges[key] = edges.get(key, 0) + c["calls"]
    return {
        "files": sorted({c["file"] for c in functions}),
        "crossings": sum(c["calls"] for c in crossings),
        "pairs": len({(c["caller"], c["callee"]) for c in crossings}),
        "edges": edges,
        "calls": sum(c["calls"] for c in functions),
        "functions": len({c["name"] for c in functions}),
    }


def report(path, name, phases=None):
    with open(path) as f:
        trace = json.load(f)
    fig = figures(trace, phases)
    print("%s: files %d, crossings %d (%d caller-callee pairs, %d edges), calls of ours %d in %d functions" % (
        name, len(fig["files"]), fig["crossings"], fig["pairs"], len(fig["edges"]), fig["calls"], fig["functions"]))
    for key, n in sorted(fig["edges"].items(), key=lambda kv: -kv[1]):
        print("  edge %-45s %6d" % (key, n))
    for f in fig["files"]:
        print("  file %s" % f)
    for callee, n in store_calls(trace, phases):
        print("  into a store target %5d  %s" % (n, callee))
    print("  store work: " + (", ".join("%s x%d" % kv for kv in store_work(trace, phases)) or "none"))


def summary(path, name, phases=None):
    with open(path) as f:
        fig = figures(json.load(f), phases)
    print("%s %d %d %d %d %d" % (name, len(fig["files"]), fig["crossings"], fig["pairs"], len(fig["edges"]),
                                 fig["calls"]))


def store_calls(trace, phases=None):
    """The calls that crossed into a store target, by callee, demangled."""
    counts = {}
    for c in trace["crossings"]:
        if (phases is None or c["phase"] in phases) and c["callee_target"] in ("SecureStore", "SessionKitPostgres"):
            counts[c["callee"]] = counts.get(c["callee"], 0) + c["calls"]
    names = demangle(list(counts))
    return sorted(((names[k], n) for k, n in counts.items()), key=lambda kv: (-kv[1], kv[0]))


# What a store does for a walk: opens, reads, read-modify-write updates, (de)cryptions, writes, statements.
STORE_WORK = re.compile(
    r"^(EncryptedFileStore\.(init\(service|data\(forKey|update\(forKey|readSealed|writeItems)"
    r"|static EncryptedFileStore\.Format\.(open|seal)\("
    r"|PostgresSessionStore\.[a-zA-Z]+\(|RowSealer\.(open|seal)\()")


def store_work(trace, phases=None):
    counts = {}
    for c in trace["functions"]:
        if (phases is None or c["phase"] in phases) and c["target"] in ("SecureStore", "SessionKitPostgres"):
            counts[c["name"]] = counts.get(c["name"], 0) + c["calls"]
    names = demangle(list(counts))
    work = {}
    for mangled, n in counts.items():
        name = names[mangled].replace("static ", "")
        if STORE_WORK.match(names[mangled]):
            name = name.split("(")[0] + "(" + name.split("(")[1].split(")")[0] + ")" if "(" in name else name
            work[name] = work.get(name, 0) + n
    return sorted(work.items())


def demangle(names):
    try:
        text = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names) + "\n",
                              capture_output=True, text=True, check=True).stdout.splitlines()
        return dict(zip(names, text))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def browser(action, url, cookies):
    import http.cookiejar
    import urllib.error
    import urllib.request

    jar = http.cookiejar.LWPCookieJar(cookies)
    if os.path.exists(cookies):
        jar.load(ignore_discard=True)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    if action == "wait":
        for _ in range(600):
            try:
                opener.open(url, timeout=5).read()
                return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("walk_trace: %s never answered" % url)
    request = urllib.request.Request(url, headers={"X-CSRF": "1"} if action == "get" else {})
    try:
        with opener.open(request, timeout=600) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    jar.save(ignore_discard=True)
    if status != 200:
        raise SystemExit("walk_trace: %s answered %d: %s" % (url, status, body[:200]))


def __lldb_init_module(debugger, internal):
    debugger.HandleCommand("command script add -f walk_trace.walk_trace walk-trace")


if __name__ == "__main__":
    if sys.argv[1:2] == ["table"] and len(sys.argv) == 5:
        build_table(*sys.argv[2:])
    elif sys.argv[1:2] in (["report"], ["summary"]) and len(sys.argv) in (4, 5):
        (report if sys.argv[1] == "report" else summary)(
            sys.argv[2], sys.argv[3], {int(p) for p in sys.argv[4].split(",")} if len(sys.argv) > 4 else None)
    elif sys.argv[1:2] == ["browser"] and len(sys.argv) == 5:
        browser(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)
