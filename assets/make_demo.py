#!/usr/bin/env python3
"""Write clawtop's demo OpenClaw state dir (era A, file-backed) into assets/demo/.

clawtop opens it (behind a DEMO banner) on machines without OpenClaw state.
Deterministic, stdlib only: running it twice yields identical bytes.
All content is made up for the demo.

    python3 assets/make_demo.py [OUT_DIR]        # default: assets/demo

Thresholds (docs/numbers.md §3) with this config: reserve = max(16384, floor 20000) = 20000.
  window 200000 (claude-*):  flush line 176000, compact line 180000
  window  32768 (qwen3:32b): flush line   8768, compact line  12768
"""
import datetime
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "demo"))
STATE_HOME = "/home/demo/.openclaw"  # as written by the (imaginary) host
T0 = 1772179200000  # 2026-02-27T08:00:00.000Z


def iso(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def hexid(*parts, n=8):
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:n]


def uuid(*parts):
    h = hashlib.sha256(("uuid/" + "/".join(map(str, parts))).encode()).hexdigest()
    return f"{h[0:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def dumps_line(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


LINES = [
    "Checked the ingress controller logs; the 502s line up with pod restarts on node-3.",
    "The readiness probe hits /healthz every 10 s with a 1 s timeout, which is tight under load.",
    "Disk usage on /var/lib/docker is at 81 %, mostly dangling images from the CI runners.",
    "The backup job writes to s3://acme-backups/pg/ and keeps 14 daily snapshots.",
    "Certificates for status.acme.example renew through the ACME DNS-01 challenge on Cloudflare.",
    "The alert fired three times overnight, each time clearing within two minutes.",
    "Grafana shows p99 latency climbing from 180 ms to 1.2 s between 02:10 and 02:40 UTC.",
    "The on-call rotation is in PagerDuty schedule PX9Q2LM; Dana is primary this week.",
    "Postgres autovacuum is lagging on the events table, 38 M dead tuples at last count.",
    "Nginx keeps 512 upstream keepalive connections; raising it did not change the error rate.",
]


def prose(n, seed=0):
    out, size, i = [], 0, seed
    while size < n:
        s = LINES[i % len(LINES)] + (" " if (i + 1) % 4 else "\n")
        out.append(s)
        size += len(s)
        i += 1
    return "".join(out)[:n]


def log_lines(n, seed=0):
    out, size, i = [], 0, seed
    while size < n:
        ms = T0 - 3600_000 + i * 733
        lvl = ("INFO", "INFO", "WARN", "INFO", "ERROR")[i % 5]
        s = f"{iso(ms)} {lvl:<5} ingress upstream=api-{i % 4} status={(200, 200, 499, 200, 502)[i % 5]} rt={(i * 37) % 1900}ms path=/v1/orders/{1000 + i}\n"
        out.append(s)
        size += len(s)
        i += 1
    return "".join(out)[:n]


class Transcript:
    def __init__(self, name, session_id, t, provider, model, api, cwd):
        self.name, self.t = name, t
        self.provider, self.model, self.api = provider, model, api
        self.n = 0
        self.tc = 0
        self.leaf = None
        self.lines = [dumps_line({"type": "session", "version": 3, "id": session_id, "timestamp": iso(t), "cwd": cwd})]

    def _id(self):
        self.n += 1
        return hexid(self.name, self.n)

    def add(self, typ, fields, parent="leaf", dt=900, front=None):
        self.t += dt
        e = {"type": typ}
        if front:
            e.update(front)
        eid = self._id()
        e["id"] = eid
        e["parentId"] = self.leaf if parent == "leaf" else parent
        e["timestamp"] = iso(self.t)
        e.update(fields)
        self.lines.append(dumps_line(e))
        self.leaf = eid
        return eid

    def start(self, thinking="off"):
        self.add("model_change", {"provider": self.provider, "modelId": self.model}, dt=7)
        self.add("thinking_level_change", {"thinkingLevel": thinking}, dt=0)
        self.t += 4
        eid = self._id()
        self.lines.append(dumps_line({"type": "custom", "customType": "model-snapshot",
                                      "data": {"timestamp": self.t, "provider": self.provider, "modelApi": self.api,
                                               "modelId": self.model},
                                      "id": eid, "parentId": self.leaf, "timestamp": iso(self.t)}))
        self.leaf = eid

    def user(self, text, parent="leaf", dt=45_000):
        return self.add("message", {"message": {"role": "user", "content": [{"type": "text", "text": text}],
                                                "timestamp": self.t + dt - 12}}, parent, dt=dt)

    @staticmethod
    def usage(inp, out, cr=0, cw=0):
        c = {"input": round(inp * 3e-6, 6), "output": round(out * 15e-6, 6), "cacheRead": round(cr * 3e-7, 6),
             "cacheWrite": round(cw * 3.75e-6, 6)}
        c["total"] = round(c["input"] + c["output"] + c["cacheRead"] + c["cacheWrite"], 6)
        return {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw, "totalTokens": inp + out + cr + cw,
                "cost": c}

    def assistant(self, blocks, usage, stop=None, error=None, parent="leaf", dt=6_000):
        if stop is None:
            stop = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
        m = {"role": "assistant", "content": blocks, "api": self.api, "provider": self.provider, "model": self.model,
             "usage": usage, "stopReason": stop}
        if error:
            m["errorMessage"] = error
        m["timestamp"] = self.t + 40
        return self.add("message", {"message": m}, parent, dt=dt)

    def call(self, name, args):
        self.tc += 1
        return {"type": "toolCall", "id": "toolu_01" + hexid(self.name, "call", self.tc, n=22), "name": name,
                "arguments": args}

    def result(self, call, text, is_error=False, details=None, dt=1_200):
        m = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
             "content": [{"type": "text", "text": text}]}
        if details is not None:
            m["details"] = details
        m["isError"] = is_error
        m["timestamp"] = self.t + dt - 3
        return self.add("message", {"message": m}, dt=dt)

    def tool(self, name, args, output, usage, say=None, thinking=None, is_error=False, details=None):
        c = self.call(name, args)
        blocks = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking,
                           "thinkingSignature": "ErUBCkYIBhgCIkD" + hexid(self.name, thinking, n=48)})
        if say:
            blocks.append({"type": "text", "text": say})
        blocks.append(c)
        self.assistant(blocks, usage)
        return self.result(c, output, is_error, details)

    def say(self, text, usage, thinking=None):
        blocks = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking,
                           "thinkingSignature": "ErUBCkYIBhgCIkD" + hexid(self.name, thinking, n=48)})
        blocks.append({"type": "text", "text": text})
        return self.assistant(blocks, usage)

    def bash_execution(self, command, output, exit_code=0, exclude=None):
        m = {"role": "bashExecution", "command": command, "output": output, "exitCode": exit_code,
             "cancelled": False, "truncated": False}
        if exclude is not None:
            m["excludeFromContext"] = exclude
        m["timestamp"] = self.t + 20_000
        return self.add("message", {"message": m}, dt=20_000)

    def compaction(self, summary, first_kept, tokens_before, read, modified):
        return self.add("compaction", {"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": tokens_before,
                                       "details": {"readFiles": read, "modifiedFiles": modified}, "fromHook": True},
                        dt=15_000)

    def flush_turn(self, note=None):
        """OpenClaw's silent pre-compaction memory flush turn (2026.2.x prompt); note=None: nothing stored."""
        date = iso(self.t + 30_000)[:10]
        self.user(FLUSH_PROMPT.replace("YYYY-MM-DD", date), dt=30_000)
        if note:
            self.tool("write", {"path": f"memory/{date}.md", "content": note},
                      f"Appended {len(note.encode())} bytes to memory/{date}.md", self.usage(15200, 140, 13200, 0))
            MEMORY.setdefault(date, []).append(note)
        self.say("NO_REPLY", self.usage(15500, 4, 15200, 0))
        self.flush_at = self.t

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(self.lines) + "\n")


def summary(goal, constraints, done, in_progress, decisions, next_steps, context, read=(), modified=(), failures=()):
    s = ["## Goal", goal, "", "## Constraints & Preferences"] + [f"- {c}" for c in constraints]
    s += ["", "## Progress", "### Done"] + [f"- [x] {d}" for d in done]
    s += ["", "### In Progress"] + ([f"- [ ] {d}" for d in in_progress] or ["- (none)"])
    s += ["", "### Blocked", "- (none)", "", "## Key Decisions"] + [f"- **{k}**: {v}" for k, v in decisions]
    s += ["", "## Next Steps"] + [f"{i + 1}. {n}" for i, n in enumerate(next_steps)]
    s += ["", "## Critical Context"] + [f"- {c}" for c in context]
    text = "\n".join(s)
    if failures:
        text += "\n\n## Tool Failures\n" + "\n".join(f"- {f}" for f in failures)
    if read:
        text += "\n\n<read-files>\n" + "\n".join(read) + "\n</read-files>"
    if modified:
        text += "\n\n<modified-files>\n" + "\n".join(modified) + "\n</modified-files>"
    return text


ANTHROPIC = ("anthropic", "claude-sonnet-4-5", "anthropic-messages")
OLLAMA = ("ollama", "qwen3:32b", "openai-completions")
MAIN_CWD = f"{STATE_HOME}/workspace"
OPS_CWD = f"{STATE_HOME}/workspace-ops"
MEMORY = {}  # date -> notes appended by flush turns
FLUSH_PROMPT = ("Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if needed). "
                "IMPORTANT: If the file already exists, APPEND new content only and do not overwrite existing entries. "
                "If nothing to store, reply with NO_REPLY.")


# ---------------------------------------------------------------- transcripts
def t_main(sid, t):
    """agent:main:main — ok. Thinking, tools, a bashExecution, a side branch, escape sequences."""
    tr = Transcript("main", sid, t, *ANTHROPIC, MAIN_CWD)
    tr.start("low")
    tr.user("Morning! Anything odd on the ingress overnight?")
    tr.tool("bash", {"command": "kubectl -n edge logs deploy/ingress --since=10h | grep -c ' 502 '"}, "37\n",
            tr.usage(14210, 96, 0, 14100), say="Let me count the 502s first.",
            thinking="Start with the ingress logs; count 502s before digging into pods.")
    # a tool result with terminal escape sequences: colour codes and an OSC 52 clipboard write
    tr.tool("bash", {"command": "kubectl -n edge get pods -o wide | head -5"},
            "NAME                       READY   STATUS    RESTARTS   NODE\n"
            "ingress-7d9c6b5f4-2xkqp    1/1     Running   0          node-1\n"
            "ingress-7d9c6b5f4-8mfzt    1/1     \u001b[31mCrashLoopBackOff\u001b[0m   6   node-3\n"
            "\u001b]52;c;cm0gLXJmIH4vLnNzaA==\u0007\u001b[2K\u001b[1A\rapi-5c8f7d-9qwte            1/1     Running   0          node-2\n",
            tr.usage(14480, 120, 14100, 260))
    tr.say("37 upstream 502s overnight, all from `ingress-7d9c6b5f4-8mfzt` on node-3, which is in CrashLoopBackOff "
           "(6 restarts). Note: that pod's output contained terminal escape sequences, shown neutralised here. "
           + prose(900, 0), tr.usage(14950, 410, 14360, 0),
           thinking="The restarts explain the 502s. Mention the odd escape sequences in the output.")
    fork = tr.user("Why is it crash-looping?")
    tr.tool("bash", {"command": "kubectl -n edge logs ingress-7d9c6b5f4-8mfzt --previous | tail -40"},
            log_lines(3800, 3), tr.usage(15600, 90, 14950, 0))
    tr.say("It is OOM-killed: the container limit is 256Mi and the last log line shows a config reload with 4k "
           "upstreams. " + prose(600, 4), tr.usage(17100, 300, 15600, 0))
    # side branch: the operator went back to `fork` and asked about the node instead
    tr.user("Actually, first check node-3 itself: disk and memory pressure.", parent=fork)
    tr.tool("bash", {"command": "kubectl describe node node-3 | sed -n '/Conditions/,/Addresses/p'"},
            "Conditions:\n  MemoryPressure   False\n  DiskPressure     True    KubeletHasDiskPressure\n  PIDPressure      False\n  Ready            True\n",
            tr.usage(15500, 110, 14950, 0))
    tr.say("node-3 reports **DiskPressure**; that evicts and restarts pods. Memory is fine.", tr.usage(15800, 60, 15500, 0))
    tr.bash_execution("ssh node-3 df -h /var/lib/docker",
                      "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme1n1    200G  187G   13G  94% /var/lib/docker\n")
    tr.user("Prune dangling images on node-3 and tell me how much we got back.")
    tr.tool("bash", {"command": "ssh node-3 docker image prune -f"}, "Deleted Images:\n" +
            "".join(f"deleted: sha256:{hexid('img', i, n=64)}\n" for i in range(24)) + "\nTotal reclaimed space: 61.4GB\n",
            tr.usage(16300, 80, 15800, 0))
    tr.say("Reclaimed 61.4 GB on node-3; /var/lib/docker is at 64 % now and the DiskPressure condition cleared.",
           tr.usage(17900, 45, 16300, 0))
    tr.add("label", {"targetId": fork, "label": "crashloop"}, dt=3_000)
    tr.add("session_info", {"name": "Ingress 502s / node-3 disk"}, dt=500)
    return tr


def t_telegram(sid, t):
    """agent:main:telegram:direct:12345 — flush-due; one compaction."""
    tr = Transcript("telegram", sid, t, *ANTHROPIC, MAIN_CWD)
    tr.start()
    tr.user("Help me plan the Postgres 15 → 17 upgrade for the orders cluster.")
    tr.tool("read", {"path": "runbooks/postgres-upgrade.md"}, prose(7000, 2), tr.usage(12100, 80))
    tr.say("Plan drafted. " + prose(2600, 5), tr.usage(14200, 700, 12000, 0))
    kept = tr.user("Use pg_upgrade --link, we have a 30 min window on Sunday 03:00 UTC.")
    tr.tool("edit", {"path": "runbooks/postgres-upgrade.md", "oldText": "## Window", "newText": "## Window\nSunday 03:00–03:30 UTC, pg_upgrade --link."},
            "Successfully replaced text in runbooks/postgres-upgrade.md.", tr.usage(15100, 140, 14100, 0))
    tr.say("Updated the runbook with the window and the --link mode.", tr.usage(15300, 30, 15100, 0))
    tr.flush_turn("\n## Postgres 17 upgrade (orders-pg)\n- Window: Sunday 03:00-03:30 UTC, pg_upgrade --link; rollback = replica pg-orders-2.\n")
    tr.compaction(summary(
        "Plan the Postgres 15 → 17 upgrade of the orders cluster.",
        ["Downtime window is Sunday 03:00–03:30 UTC", "Use pg_upgrade --link"],
        ["Drafted the upgrade plan", "Recorded the window in runbooks/postgres-upgrade.md"], ["Rehearse on staging"],
        [("--link mode", "fits the 30 min window; rollback is the replica")],
        ["Rehearse on staging-orders", "Snapshot the replica before the run"],
        ["Cluster: orders-pg (primary pg-orders-1, replica pg-orders-2)", "PR #2291 holds the runbook changes"],
        read=[], modified=["runbooks/postgres-upgrade.md"]),
        kept, 181240, [], ["runbooks/postgres-upgrade.md"])
    tr.user("Rehearsal on staging done, it took 11 minutes. Here is the log:\n" + log_lines(9000, 7))
    tr.say("11 minutes leaves plenty of margin. " + prose(3000, 1), tr.usage(24800, 800, 2100, 0))
    tr.user("Great. Draft the announcement for #eng-announce.")
    tr.say("**Orders DB maintenance — Sunday 03:00–03:30 UTC.** " + prose(1400, 6), tr.usage(26100, 420, 24700, 0))
    return tr


def t_discord(sid, t):
    """agent:main:discord:channel:998877 — flushed; two compactions and a silent memory-flush turn."""
    tr = Transcript("discord", sid, t, *ANTHROPIC, MAIN_CWD)
    tr.start()
    tr.user("We need a cost report for the staging cluster, broken down by namespace.")
    tr.tool("read", {"path": "reports/cost/2026-01.csv"}, prose(6000, 3), tr.usage(11800, 70))
    tr.tool("bash", {"command": "kubecost-cli allocation --window 30d --aggregate namespace -o csv"},
            "kubecost: error: context deadline exceeded (Client.Timeout exceeded while awaiting headers)\n",
            tr.usage(13400, 80, 11700, 0), is_error=True)
    tr.tool("bash", {"command": "kubecost-cli allocation --window 30d --aggregate namespace -o csv --timeout 120s"},
            "namespace,cpu,ram,pv,total\nci,412.10,188.32,40.00,640.42\nstaging,233.80,150.12,95.50,479.42\n",
            tr.usage(13900, 90, 13300, 0))
    k1 = tr.user("Put it in reports/cost/2026-02.md with a short commentary.")
    tr.tool("write", {"path": "reports/cost/2026-02.md", "content": "# Staging cost, Feb 2026\n\n| namespace | total |\n|---|---|\n| ci | $640.42 |\n| staging | $479.42 |\n"},
            "Wrote 118 bytes to reports/cost/2026-02.md", tr.usage(14300, 160, 13800, 0))
    tr.say("Report written. " + prose(1500, 4), tr.usage(14800, 380, 14200, 0))
    tr.compaction(summary(
        "Produce the February staging cost report by namespace.",
        ["Report goes to reports/cost/2026-02.md", "Dollar amounts with two decimals"],
        ["Pulled 30-day allocation from kubecost", "Wrote reports/cost/2026-02.md"], ["Add commentary on the CI spend"],
        [("30 day window", "matches finance's monthly close")],
        ["Explain why CI costs more than staging", "Share the report in #finops"],
        ["kubecost-cli needs --timeout 120s on this cluster"],
        read=["reports/cost/2026-01.csv"], modified=["reports/cost/2026-02.md"],
        failures=["bash (exitCode=1): kubecost: error: context deadline exceeded"]),
        k1, 182310, ["reports/cost/2026-01.csv"], ["reports/cost/2026-02.md"])
    k2 = tr.user("Why is CI more expensive than staging?")
    tr.tool("bash", {"command": "kubectl -n ci top pods --sort-by=cpu | head -15"}, prose(4200, 6),
            tr.usage(9800, 90, 2300, 0))
    tr.say("CI runners request 4 CPUs each but use ~0.6 on average. " + prose(2200, 7), tr.usage(12400, 560, 9700, 0))
    tr.tool("edit", {"path": "reports/cost/2026-02.md", "oldText": "| staging | $479.42 |",
                     "newText": "| staging | $479.42 |\n\nCI runners are over-requested (4 CPU requested, ~0.6 used)."},
            "Successfully replaced text in reports/cost/2026-02.md.", tr.usage(13100, 150, 12300, 0))
    tr.say("Commentary added to the report.", tr.usage(13300, 25, 13000, 0))
    tr.compaction(summary(
        "Produce the February staging cost report by namespace and explain the CI spend.",
        ["Report goes to reports/cost/2026-02.md", "Dollar amounts with two decimals"],
        ["Pulled 30-day allocation from kubecost", "Wrote reports/cost/2026-02.md",
         "Explained CI over-requesting in the report"], [],
        [("30 day window", "matches finance's monthly close"), ("Right-size CI runners", "4 CPU requested vs ~0.6 used")],
        ["Share the report in #finops", "Open a PR lowering CI runner requests to 1 CPU"],
        ["kubecost-cli needs --timeout 120s on this cluster", "CI runner chart: charts/ci-runner/values.yaml"],
        read=["reports/cost/2026-01.csv"], modified=["reports/cost/2026-02.md"]),
        k2, 183020, ["reports/cost/2026-01.csv"], ["reports/cost/2026-02.md"])
    # OpenClaw's silent pre-compaction memory flush turn
    tr.flush_turn("\n## Staging cost report (Feb)\n- CI runners over-request CPU (4 requested, ~0.6 used); PR to lower to 1 CPU pending.\n"
                  "- kubecost-cli needs --timeout 120s on staging.\n")
    tr.user("Share the report in #finops please.")
    tr.say("Posted to #finops with the CI right-sizing note. " + prose(800, 2), tr.usage(16200, 230, 15400, 0))
    return tr


def t_slack(sid, t):
    """agent:main:slack:channel:c07ops — compact-due (flushed this cycle)."""
    tr = Transcript("slack", sid, t, *ANTHROPIC, MAIN_CWD)
    tr.start("medium")
    tr.user("Incident review for yesterday's checkout outage, please collect the timeline.")
    for i, (cmd, out) in enumerate([
        ("grep -h 'checkout' /var/log/pagerduty/2026-02-26.log", log_lines(9000, 11)),
        ("kubectl -n shop get events --sort-by=.lastTimestamp | tail -60", log_lines(8000, 21)),
        ("gh pr list --repo acme/shop --search 'merged:2026-02-26' --json number,title", prose(3000, 8)),
    ]):
        tr.tool("bash", {"command": cmd}, out, tr.usage(30000 + i * 6000, 120, 29000 + i * 6000, 0),
                thinking="Collect one source at a time: pages, then k8s events, then merged PRs." if i == 0 else None)
    tr.say("Timeline: 14:02 deploy of PR #5120, 14:05 first 5xx page, 14:19 rollback, 14:26 recovered. "
           + prose(2400, 9), tr.usage(50100, 900, 48000, 0),
           thinking="The deploy at 14:02 precedes the first page by three minutes; rollback fixed it.")
    tr.user("Write it up in incidents/2026-02-26-checkout.md")
    tr.tool("write", {"path": "incidents/2026-02-26-checkout.md", "content": "# Checkout outage 2026-02-26\n\n" + prose(1800, 3)},
            "Wrote 1832 bytes to incidents/2026-02-26-checkout.md", tr.usage(52400, 700, 51000, 0))
    tr.say("Draft written. Shall I add the action items?", tr.usage(53200, 20, 52300, 0))
    tr.flush_turn(None)
    return tr


def t_ops_main(sid, t):
    """agent:ops:main — over (qwen3:32b, 32768 window)."""
    tr = Transcript("opsmain", sid, t, *OLLAMA, OPS_CWD)
    tr.start()
    tr.user("Audit the firewall rules on the bastion hosts.")
    tr.tool("bash", {"command": "sudo nft list ruleset"}, log_lines(12000, 31), tr.usage(9800, 150))
    tr.tool("bash", {"command": "sudo nft list ruleset -a | grep -n 'dport 22'"}, log_lines(9000, 41), tr.usage(19900, 120))
    tr.say("Port 22 is open to 0.0.0.0/0 on bastion-2. " + prose(2000, 5), tr.usage(30200, 820))
    tr.user("Compare with bastion-1.")
    tr.tool("bash", {"command": "ssh bastion-1 sudo nft list ruleset"}, log_lines(7000, 51), tr.usage(33900, 110))
    tr.say("bastion-1 limits port 22 to the VPN range 10.8.0.0/16. " + prose(900, 2), tr.usage(34700, 420))
    return tr


def t_cron(sid, t):
    """agent:ops:cron:nightly-report — unknown: the run failed before any usage was recorded."""
    tr = Transcript("cron", sid, t, *OLLAMA, OPS_CWD)
    tr.start()
    tr.user("[cron:nightly-report] Build the nightly ops report: failed jobs, disk usage, certificate expiry.")
    tr.assistant([], tr.usage(0, 0), stop="error", error="Connection error: connect ECONNREFUSED 127.0.0.1:11434")
    return tr


def t_dashboard(sid, t):
    """agent:main:dashboard:… — estimated (totalTokensFresh false, transcript has usage)."""
    tr = Transcript("dashboard", sid, t, *ANTHROPIC, MAIN_CWD)
    tr.start()
    tr.user("Tune the HPA for the api deployment; it flaps between 3 and 12 replicas.")
    tr.tool("read", {"path": "k8s/api/hpa.yaml"}, "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n" + prose(3000, 1),
            tr.usage(9100, 80))
    kept = tr.user("Add a scale-down stabilization window of 5 minutes.")
    tr.tool("edit", {"path": "k8s/api/hpa.yaml", "oldText": "behavior: {}",
                     "newText": "behavior:\n  scaleDown:\n    stabilizationWindowSeconds: 300"},
            "Successfully replaced text in k8s/api/hpa.yaml.", tr.usage(10400, 120, 9000, 0))
    tr.say("Added a 300 s scale-down stabilization window.", tr.usage(10600, 30, 10300, 0))
    tr.compaction(summary(
        "Stop the api HPA from flapping.", ["Do not change the max replica count (12)"],
        ["Read k8s/api/hpa.yaml", "Added scaleDown.stabilizationWindowSeconds: 300"], ["Watch the replica count for a day"],
        [("Stabilization window", "dampens scale-down without slowing scale-up")],
        ["Check the replica graph tomorrow"], ["Deployment: api in namespace shop"],
        read=[], modified=["k8s/api/hpa.yaml"]),
        kept, 181900, [], ["k8s/api/hpa.yaml"])
    tr.user("It has been a day. Replica count graph attached as numbers: " + ", ".join(str(3 + (i * 7) % 5) for i in range(120)))
    tr.say("Replicas stayed between 3 and 7 with no flapping. " + prose(1600, 6), tr.usage(21500, 480, 4100, 0))
    tr.user("Good. Close the ticket with that summary: " + prose(1400, 8))  # trailing message after the last usage
    return tr


# ---------------------------------------------------------------- store
def skills_snapshot(names):
    skills = {
        "healthcheck": "Check hosts and services for failed units, disk, certificates and open ports.",
        "k8s-debug": "Inspect Kubernetes workloads: pods, events, logs, node conditions.",
        "runbook": "Find and follow runbooks under runbooks/ in the workspace.",
        "weather": "Current weather and forecasts for a location.",
    }
    prompt = ("\n\nThe following skills provide specialized instructions for specific tasks.\n"
              "Use the read tool to load a skill's file when the task matches its description.\n\n<available_skills>\n")
    for n in names:
        prompt += (f"  <skill>\n    <name>{n}</name>\n    <description>{skills[n]}</description>\n"
                   f"    <location>{STATE_HOME}/skills/{n}/SKILL.md</location>\n  </skill>\n")
    prompt += "</available_skills>"
    return {"prompt": prompt, "skills": [{"name": n} for n in names],
            "resolvedSkills": [{"name": n, "description": skills[n], "filePath": f"{STATE_HOME}/skills/{n}/SKILL.md",
                                "baseDir": f"{STATE_HOME}/skills/{n}", "source": "openclaw-managed",
                                "disableModelInvocation": False} for n in names],
            "version": 1}


def system_prompt_report(provider, model, chars):
    return {"source": "run", "generatedAt": T0 - 3600_000, "provider": provider, "model": model,
            "workspaceDir": MAIN_CWD, "bootstrapMaxChars": 20000,
            "systemPrompt": {"chars": chars, "projectContextChars": 6120, "nonProjectContextChars": chars - 6120},
            "injectedWorkspaceFiles": [
                {"name": "AGENTS.md", "path": f"{MAIN_CWD}/AGENTS.md", "missing": False, "rawChars": 1840, "injectedChars": 1840, "truncated": False},
                {"name": "SOUL.md", "path": f"{MAIN_CWD}/SOUL.md", "missing": False, "rawChars": 610, "injectedChars": 610, "truncated": False},
                {"name": "USER.md", "path": f"{MAIN_CWD}/USER.md", "missing": True, "rawChars": 0, "injectedChars": 0, "truncated": False}],
            "skills": {"promptChars": 1210, "entries": [{"name": "healthcheck", "blockChars": 290}, {"name": "k8s-debug", "blockChars": 280}]},
            "tools": {"listChars": 2230, "schemaChars": 9840, "entries": [{"name": "read", "summaryChars": 120, "schemaChars": 610},
                                                                         {"name": "bash", "summaryChars": 160, "schemaChars": 890}]}}


def tokens_of(tr):
    """(input, output, cacheRead, cacheWrite) of the transcript's last valid assistant usage."""
    for line in reversed(tr.lines):
        e = json.loads(line)
        m = e.get("message") or {}
        if m.get("role") == "assistant" and m.get("stopReason") not in ("aborted", "error") and m.get("usage"):
            u = m["usage"]
            return u["input"], u["output"], u["cacheRead"], u["cacheWrite"]
    return None


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)

    def w(rel, text, mode=None):
        p = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        if mode is not None:
            os.chmod(p, mode)

    w("README.md", """DEMO state dir made by `assets/make_demo.py` for clawtop's demo mode: an invented OpenClaw
2026.2.x host (era A, file-backed) with two agents and nine sessions, one per status. Not real data.
Regenerate with `python3 assets/make_demo.py` (deterministic: same bytes every run).

Thresholds: reserve = max(16384, reserveTokensFloor 20000) = 20000, soft 4000; keepRecentTokens 2000
(small, so the short demo transcripts have something to compact).

| session key | window | used (provenance) | flush / compact line | compactionCount / memoryFlushCompactionCount | status | transcript |
|---|---|---|---|---|---|---|
| `agent:main:main` | 200000 | 48210 (fresh) | 176000 / 180000 | 0 / - | ok | thinking, tools, bashExecution, side branch, label, session_info, ANSI + OSC 52 escapes |
| `agent:main:telegram:direct:12345` | 200000 | 177400 (fresh) | 176000 / 180000 | 1 / 0 | flush-due | flush turn + 1 compaction |
| `agent:main:discord:channel:998877` | 200000 | 178900 (fresh) | 176000 / 180000 | 2 / 2 | flushed | 2 compactions (structured summaries, file tags, tool failures), silent flush turn (NO_REPLY) |
| `agent:main:slack:channel:c07ops` | 200000 | 186450 (fresh) | 176000 / 180000 | 0 / 0 | compact-due | thinking, flush turn that stored nothing |
| `agent:main:dashboard:5f0c2a7e` | 200000 | 26441 (estimated: totalTokensFresh false; last usage 26080 + trailing 361) | 176000 / 180000 | 1 / - | ok | 1 compaction |
| `agent:main:whatsapp:direct:+15555550123` | 200000 | 120400 (legacy: no totalTokensFresh) | 176000 / 180000 | 0 / - | ok | short |
| `agent:main:subagent:3b9e1d44` | 200000 | 15870 (fresh) | 176000 / 180000 | 0 / - | ok | **missing** |
| `agent:ops:main` | 32768 | 35120 (fresh) | 8768 / 12768 | 0 / - | over (107 %) | qwen3:32b via ollama |
| `agent:ops:cron:nightly-report` | 32768 | unknown (no totalTokens, no valid usage) | 8768 / 12768 | 0 / - | unknown | one user message + an error reply |

Paths inside name `/home/demo/.openclaw`; `sessionFile` values are bare file names.
""")

    w("openclaw.json", """// clawtop DEMO host: invented OpenClaw config (JSON5)
{
  meta: { lastTouchedVersion: "2026.2.26" },
  models: {
    mode: "merge",
    providers: {
      anthropic: {
        baseUrl: "https://api.anthropic.com",
        api: "anthropic-messages",
        models: [
          { id: "claude-sonnet-4-5", name: "Claude Sonnet 4.5", reasoning: true, input: ["text", "image"],
            contextWindow: 200000, maxTokens: 64000 },
        ],
      },
      ollama: {
        baseUrl: "http://127.0.0.1:11434/v1",
        apiKey: "ollama-local",
        api: "openai-completions",
        models: [
          { id: "qwen3:32b", name: "Qwen3 32B (local)", reasoning: false, input: ["text"],
            contextWindow: 32768, maxTokens: 8192 },
        ],
      },
    },
  },
  agents: {
    defaults: {
      model: { primary: "anthropic/claude-sonnet-4-5" },
      workspace: "~/.openclaw/workspace",
      compaction: {
        mode: "safeguard",
        reserveTokensFloor: 20000,
        // Small on purpose: the demo's transcripts are short, and a new user should be able
        // to try a compaction on them (OpenClaw's default keeps 20000).
        keepRecentTokens: 2000,
        memoryFlush: {
          enabled: true,
          softThresholdTokens: 4000,
        },
      },
    },
    list: [
      { id: "main", default: true, workspace: "~/.openclaw/workspace" },
      { id: "ops", name: "Ops bot", workspace: "~/.openclaw/workspace-ops",
        model: { primary: "ollama/qwen3:32b" } },
    ],
  },
  channels: {
    telegram: { enabled: true, dmPolicy: "pairing" },
    discord: { enabled: true },
  },
}
""")

    models_main = {"providers": {"anthropic": {"baseUrl": "https://api.anthropic.com", "api": "anthropic-messages",
                                               "models": [{"id": "claude-sonnet-4-5", "name": "Claude Sonnet 4.5", "reasoning": True,
                                                           "input": ["text", "image"],
                                                           "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
                                                           "contextWindow": 200000, "maxTokens": 64000, "api": "anthropic-messages"}]}}}
    models_ops = {"providers": {"ollama": {"baseUrl": "http://127.0.0.1:11434/v1", "apiKey": "ollama-local",
                                           "api": "openai-completions",
                                           "models": [{"id": "qwen3:32b", "name": "Qwen3 32B (local)", "reasoning": False,
                                                       "input": ["text"], "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                                                       "contextWindow": 32768, "maxTokens": 8192, "api": "openai-completions"}]}}}
    w("agents/main/agent/models.json", json.dumps(models_main, indent=2), 0o600)
    w("agents/ops/agent/models.json", json.dumps(models_ops, indent=2), 0o600)

    # workspaces
    w("workspace/AGENTS.md", "# AGENTS.md\n\nYou are the ops assistant for the ACME platform team.\n"
                             "- Prefer read-only commands; ask before changing production.\n"
                             "- Record durable facts in memory/YYYY-MM-DD.md.\n")
    w("workspace/SOUL.md", "# SOUL.md\n\nCalm, precise, brief. Cite the command you ran.\n")
    w("workspace-ops/AGENTS.md", "# AGENTS.md\n\nOps bot: nightly reports and audits. Never change firewall rules yourself.\n")
    w("workspace-ops/memory/2026-02-25.md", "# 2026-02-25\n\n- bastion-1 allows SSH only from 10.8.0.0/16 (VPN).\n")

    # sessions: (agent, key, builder or None, status notes, store fields)
    H = 3600_000
    specs = [
        # key, agent, builder, start offset, store overrides
        ("agent:main:main", "main", t_main, -2 * H,
         dict(contextTokens=200000, fresh=True, total=48210, compactionCount=0, skills=["healthcheck", "k8s-debug", "runbook"],
              report=True, extra={"chatType": "direct", "lastChannel": "webchat"})),
        ("agent:main:telegram:direct:12345", "main", t_telegram, -26 * H,
         dict(contextTokens=200000, fresh=True, total=177400, compactionCount=1, memoryFlushCompactionCount=0,
              memoryFlushAt="turn", skills=["healthcheck", "runbook"],
              extra={"chatType": "direct", "channel": "telegram", "lastChannel": "telegram", "lastTo": "telegram:12345",
                     "deliveryContext": {"channel": "telegram", "to": "telegram:12345"},
                     "origin": {"label": "Dana (@dana_ops)", "provider": "telegram", "surface": "telegram",
                                "chatType": "direct", "from": "telegram:12345", "to": "telegram:12345"}})),
        ("agent:main:discord:channel:998877", "main", t_discord, -9 * H,
         dict(contextTokens=200000, fresh=True, total=178900, compactionCount=2, memoryFlushCompactionCount=2,
              memoryFlushAt="turn", skills=["healthcheck"],
              extra={"chatType": "group", "channel": "discord", "groupId": "998877", "displayName": "#finops",
                     "lastChannel": "discord", "lastTo": "channel:998877"})),
        ("agent:main:slack:channel:c07ops", "main", t_slack, -5 * H,
         dict(contextTokens=200000, fresh=True, total=186450, compactionCount=0, memoryFlushCompactionCount=0,
              memoryFlushAt="turn", skills=["healthcheck", "k8s-debug"],
              extra={"chatType": "group", "channel": "slack", "displayName": "#ops-incidents",
                     "lastChannel": "slack", "lastTo": "channel:C07OPS"})),
        ("agent:main:dashboard:5f0c2a7e", "main", t_dashboard, -50 * H,
         dict(contextTokens=200000, fresh=False, total=181900, compactionCount=1, skills=["k8s-debug"],
              extra={"label": "HPA tuning", "chatType": "direct"})),
        ("agent:main:whatsapp:direct:+15555550123", "main", None, -140 * H,
         dict(contextTokens=200000, fresh="absent", total=120400, compactionCount=0, legacy=True,
              extra={"chatType": "direct", "channel": "whatsapp", "lastChannel": "whatsapp", "lastTo": "+15555550123"})),
        ("agent:main:subagent:3b9e1d44", "main", "missing", -3 * H,
         dict(contextTokens=200000, fresh=True, total=15870, compactionCount=0,
              extra={"spawnedBy": "agent:main:main", "label": "log-triage subagent"})),
        ("agent:ops:main", "ops", t_ops_main, -1 * H,
         dict(contextTokens=32768, fresh=True, total=35120, compactionCount=0,
              extra={"chatType": "direct", "lastChannel": "webchat"})),
        ("agent:ops:cron:nightly-report", "ops", t_cron, -6 * H,
         dict(contextTokens=32768, fresh=None, total=None, compactionCount=0, aborted=True, extra={})),
    ]

    stores = {"main": {}, "ops": {}}
    for key, agent, builder, off, o in specs:
        sid = uuid("session", key)
        start = T0 + off
        fname = f"{sid}.jsonl"
        provider, model = (OLLAMA[0], OLLAMA[1]) if agent == "ops" else (ANTHROPIC[0], ANTHROPIC[1])
        usage = None
        updated = start + 600_000
        flush_at = None
        if callable(builder):
            tr = builder(sid, start)
            tr.write(os.path.join(OUT, "agents", agent, "sessions", fname))
            usage = tokens_of(tr)
            updated = tr.t + 500
            flush_at = getattr(tr, "flush_at", None)
        elif builder is None:
            # legacy session: transcript from an older build with no totalTokensFresh in the store
            tr = Transcript("legacy", sid, start, *ANTHROPIC, MAIN_CWD)
            tr.start()
            tr.user("Remind me which bastion allows SSH from the VPN only.")
            tr.say("bastion-1 (10.8.0.0/16). " + prose(400, 1), tr.usage(118900, 60, 0, 1500))
            tr.write(os.path.join(OUT, "agents", agent, "sessions", fname))
            usage = tokens_of(tr)
            updated = tr.t + 500
        e = {"sessionId": sid, "updatedAt": updated}
        if o.get("skills"):
            e["skillsSnapshot"] = skills_snapshot(o["skills"])
        e["sessionFile"] = fname
        e["contextTokens"] = o["contextTokens"]
        e["modelProvider"] = provider
        e["model"] = model
        if o.get("aborted"):
            e["abortedLastRun"] = True
        else:
            e["abortedLastRun"] = False
        if o["total"] is not None:
            _, out, cr, cw = usage if usage else (0, 310, 0, 0)
            if o["total"] - cr - cw < 0:
                cr, cw = 0, 0
            inp = o["total"] - cr - cw  # OpenClaw: totalTokens = input + cacheRead + cacheWrite of the last call
            e["inputTokens"] = inp
            e["outputTokens"] = out
            e["totalTokens"] = o["total"]
            if o["fresh"] != "absent":
                e["totalTokensFresh"] = o["fresh"]
            e["cacheRead"] = cr
            e["cacheWrite"] = cw
        e["compactionCount"] = o["compactionCount"]
        if "memoryFlushCompactionCount" in o:
            e["memoryFlushAt"] = flush_at
            e["memoryFlushCompactionCount"] = o["memoryFlushCompactionCount"]
        if o.get("report"):
            e["systemPromptReport"] = system_prompt_report(provider, model, 18342)
        e.update(o["extra"])
        stores[agent][key] = e

    notes = {"2026-02-26": "# 2026-02-26\n\n## Backups\n- Restore test of the orders-pg snapshot passed; 14 daily snapshots "
                           "in s3://acme-backups/pg/.\n- Dana is on call this week (PagerDuty PX9Q2LM).\n"}
    for date in sorted(MEMORY):
        notes[date] = notes.get(date, f"# {date}\n") + "".join(MEMORY[date])
    for date, text in sorted(notes.items()):
        w(f"workspace/memory/{date}.md", text)

    for agent, store in stores.items():
        w(f"agents/{agent}/sessions/sessions.json", json.dumps(store, indent=2, ensure_ascii=False), 0o600)


if __name__ == "__main__":
    main()
