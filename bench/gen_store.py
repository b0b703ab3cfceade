#!/usr/bin/env python3
"""Write a deterministic OpenClaw state dir for the `clawtop list` benchmark.

    python3 bench/gen_store.py OUT_DIR [--sessions 2000] [--seed N] [--missing 0]

One agent (`main`) whose sessions.json holds 2,000 entries (~30 MB: each entry carries a
large skillsSnapshot {prompt, skills, resolvedSkills} and a systemPromptReport, as on
real hosts), plus 24 small shared transcripts the entries point at through sessionFile.
Every 7th entry has totalTokensFresh:false (so clawtop estimates from the transcript),
every 11th has no totalTokensFresh (legacy), every 13th has no totalTokens.
--missing N: the N oldest entries name a transcript file that is not there (real stores keep
entries after their transcripts are archived or deleted; issue 31 found `list` quadratic in them).
Same arguments -> same bytes.
"""
import datetime
import hashlib
import json
import os
import random
import sys

args = sys.argv[1:]
n_sessions, seed, n_missing = 2000, 7, 0
for flag in ("--sessions", "--seed", "--missing"):
    if flag in args:
        i = args.index(flag)
        val = int(args[i + 1])
        del args[i:i + 2]
        if flag == "--sessions":
            n_sessions = val
        elif flag == "--missing":
            n_missing = val
        else:
            seed = val
if len(args) != 1:
    sys.exit("usage: gen_store.py OUT_DIR [--sessions N] [--seed N] [--missing N]")
OUT = args[0]
rng = random.Random(seed)
T0 = 1772179200000
HOME = "/home/bench/.openclaw"
N_TRANSCRIPTS = 24


def iso(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def h(*p, n=8):
    return hashlib.sha256("/".join(map(str, p)).encode()).hexdigest()[:n]


def uuid(*p):
    x = h("uuid", *p, n=32)
    return f"{x[0:8]}-{x[8:12]}-4{x[13:16]}-a{x[17:20]}-{x[20:32]}"


WORDS = ("inspect hosts services certificates firewall kubernetes pods events logs backups restore snapshots "
         "weather forecasts calendar email triage github issues pull requests release notes changelog metrics "
         "dashboards alerts paging runbooks incidents postmortems budgets invoices exports").split()


def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


SKILLS = [(f"skill-{i:02d}-{rng.choice(WORDS)}", words(rng.randint(25, 60)).capitalize() + ".") for i in range(48)]


def skills_snapshot(k):
    chosen = SKILLS[: 5 + k % 4]
    prompt = ("\n\nThe following skills provide specialized instructions for specific tasks.\n"
              "Use the read tool to load a skill's file when the task matches its description.\n"
              "When a skill file references a relative path, resolve it against the skill directory.\n\n<available_skills>\n")
    for name, desc in chosen:
        prompt += (f"  <skill>\n    <name>{name}</name>\n    <description>{desc}</description>\n"
                   f"    <location>/usr/lib/node_modules/openclaw/skills/{name}/SKILL.md</location>\n  </skill>\n")
    prompt += "</available_skills>"
    return {"prompt": prompt,
            "skills": [{"name": n, "requiredEnv": []} if i % 3 else {"name": n} for i, (n, _) in enumerate(chosen)],
            "resolvedSkills": [{"name": n, "description": d, "filePath": f"/usr/lib/node_modules/openclaw/skills/{n}/SKILL.md",
                                "baseDir": f"/usr/lib/node_modules/openclaw/skills/{n}", "source": "openclaw-bundled",
                                "disableModelInvocation": False} for n, d in chosen],
            "version": 1}


def system_prompt_report(k):
    return {"source": "run", "generatedAt": T0 - k * 60_000, "sessionId": uuid("s", k), "sessionKey": f"agent:main:k{k}",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "workspaceDir": f"{HOME}/workspace",
            "bootstrapMaxChars": 20000, "sandbox": {"mode": "off", "sandboxed": False},
            "systemPrompt": {"chars": 21000 + k % 500, "projectContextChars": 7100, "nonProjectContextChars": 13900 + k % 500},
            "injectedWorkspaceFiles": [{"name": n, "path": f"{HOME}/workspace/{n}", "missing": False, "rawChars": 900 + i * 311,
                                        "injectedChars": 900 + i * 311, "truncated": False}
                                       for i, n in enumerate(["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md"])],
            "skills": {"promptChars": 9000 + k % 900, "entries": [{"name": n, "blockChars": 180 + len(d)} for n, d in SKILLS[:12]]},
            "tools": {"listChars": 2600, "schemaChars": 15400,
                      "entries": [{"name": t, "summaryChars": 90 + i * 7, "schemaChars": 400 + i * 53, "propertiesCount": 2 + i % 5}
                                  for i, t in enumerate(["read", "edit", "write", "exec", "process", "browser", "canvas", "nodes", "cron",
                                                         "message", "tts", "gateway", "agents_list", "sessions_list", "sessions_history",
                                                         "sessions_send", "sessions_spawn", "session_status", "web_search", "web_fetch",
                                                         "image", "memory_search", "memory_get"])]}}


def transcript(j, path):
    t = T0 - 86_400_000 + j * 600_000
    leaf = None
    n = 0
    lines = [json.dumps({"type": "session", "version": 3, "id": uuid("t", j), "timestamp": iso(t), "cwd": f"{HOME}/workspace"},
                        separators=(",", ":"))]

    def add(fields):
        nonlocal leaf, n, t
        n += 1
        t += 2_000
        e = {"type": "message", "id": h("e", j, n), "parentId": leaf, "timestamp": iso(t)}
        e.update(fields)
        lines.append(json.dumps(e, separators=(",", ":"), ensure_ascii=False))
        leaf = e["id"]

    ctx = 8000 + j * 1000
    for turn in range(6 + j % 5):
        add({"message": {"role": "user", "content": [{"type": "text", "text": words(40 + turn * 7)}], "timestamp": t}})
        cid = "call_" + h("c", j, turn, n=12)
        ctx += 1500
        add({"message": {"role": "assistant", "content": [{"type": "toolCall", "id": cid, "name": "exec",
                                                           "arguments": {"command": f"openclaw status --json # {turn}"}}],
                         "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                         "usage": {"input": 300, "output": 40, "cacheRead": ctx, "cacheWrite": 0, "totalTokens": ctx + 340,
                                   "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                         "stopReason": "toolUse", "timestamp": t}})
        add({"message": {"role": "toolResult", "toolCallId": cid, "toolName": "exec",
                         "content": [{"type": "text", "text": words(300)}], "isError": False, "timestamp": t}})
        add({"message": {"role": "assistant", "content": [{"type": "text", "text": words(120)}],
                         "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                         "usage": {"input": 500, "output": 300, "cacheRead": ctx, "cacheWrite": 0, "totalTokens": ctx + 800,
                                   "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                         "stopReason": "stop", "timestamp": t}})
    add({"message": {"role": "user", "content": [{"type": "text", "text": words(90)}], "timestamp": t}})  # trailing
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


sessions_dir = os.path.join(OUT, "agents", "main", "sessions")
os.makedirs(sessions_dir, exist_ok=True)
os.makedirs(os.path.join(OUT, "agents", "main", "agent"), exist_ok=True)
with open(os.path.join(OUT, "openclaw.json"), "w") as f:
    f.write('{\n  agents: { defaults: { workspace: "~/.openclaw/workspace", compaction: { mode: "safeguard", '
            'reserveTokensFloor: 20000, memoryFlush: { enabled: true, softThresholdTokens: 4000 } } } },\n}\n')

names = []
for j in range(N_TRANSCRIPTS):
    name = f"{uuid('t', j)}.jsonl"
    transcript(j, os.path.join(sessions_dir, name))
    names.append(name)

channels = ["telegram", "discord", "slack", "whatsapp", "signal", "webchat"]
store = {}
for k in range(n_sessions):
    ch = channels[k % len(channels)]
    kind = k % 4
    key = ("agent:main:main" if k == 0 else
           f"agent:main:{ch}:direct:{100000 + k}" if kind == 0 else
           f"agent:main:{ch}:group:{h('g', k, n=10)}" if kind == 1 else
           f"agent:main:cron:{h('cron', k, n=6)}:run:{uuid('r', k)}" if kind == 2 else
           f"agent:main:subagent:{uuid('sa', k)}")
    window = 200000
    total = rng.randint(2000, 199000)
    e = {"sessionId": uuid("s", k), "updatedAt": T0 - k * 97_000, "skillsSnapshot": skills_snapshot(k),
         "sessionFile": names[k % N_TRANSCRIPTS] if k < n_sessions - n_missing else f"{uuid('gone', k)}.jsonl",
         "contextTokens": window, "modelProvider": "anthropic",
         "model": "claude-sonnet-4-5", "abortedLastRun": k % 29 == 0}
    if k % 13 != 0:
        e["inputTokens"] = total - 4000
        e["outputTokens"] = rng.randint(50, 3000)
        e["totalTokens"] = total
        if k % 11 != 0:
            e["totalTokensFresh"] = k % 7 != 0
        e["cacheRead"] = 4000
        e["cacheWrite"] = 0
    e["compactionCount"] = k % 5
    if k % 3 == 0:
        e["memoryFlushAt"] = T0 - k * 50_000
        e["memoryFlushCompactionCount"] = k % 5 if k % 2 else max(0, k % 5 - 1)
    e["systemPromptReport"] = system_prompt_report(k)
    e["chatType"] = "group" if kind == 1 else "direct"
    e["lastChannel"] = ch
    e["deliveryContext"] = {"channel": ch, "to": f"{ch}:{100000 + k}"}
    store[key] = e

p = os.path.join(sessions_dir, "sessions.json")
with open(p, "w", encoding="utf-8") as f:
    f.write(json.dumps(store, indent=2, ensure_ascii=False))
print(f"{p}: {os.path.getsize(p) / 1048576:.1f} MB, {len(store)} sessions "
      f"({n_missing} without a transcript), {N_TRANSCRIPTS} transcripts", file=sys.stderr)
