#!/usr/bin/env python3
"""bench/gen_issue33.py OUT_DIR — the hostile inputs of issue 33 item 8, each as a copy of
the host-a fixture (OpenClaw 2026.2.26) with its transcript replaced:

  paths-200k/   one compaction whose summary names 200,000 paths (2.5 MB)
  paths-500k/   the same with 500,000 paths
  keep-early/   20,000 compactions, each keeping from the second message (~6.5 MB)
  urls-600k/    one 15.5 MB user message of 600,000 URLs in the summarized span
  gateway.log   265 MB of `memoryFlush triggered` lines for agent:main:main

Deterministic; run by bench/run.sh's issue-33 rows (BENCH_SKIP_ISSUE33=1 leaves them out).
"""
import json, os, shutil, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_A = os.path.join(ROOT, "tests/fixtures/openclaw-2026.2.26/host-a")
NAME = "agents/main/sessions/eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl"
TS = "2026-11-21T04:00:00.000Z"


def host(out, name, lines):
    d = os.path.join(out, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(HOST_A, d)
    with open(os.path.join(d, NAME), "w") as f:
        for l in lines:
            f.write(json.dumps(l, separators=(",", ":")) + "\n")


def header():
    return {"type": "session", "version": 3, "id": "eac41430-1d8c-40e8-add8-b2ec20a92074",
            "timestamp": TS, "cwd": "/srv"}


def msg(i, parent, role, text):
    m = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}
    if role == "assistant":
        m.update({"api": "openai-completions", "provider": "fake", "model": "fake-model",
                  "usage": {"input": 1000, "output": 10, "cacheRead": 0, "cacheWrite": 0,
                            "totalTokens": 1010}, "stopReason": "stop"})
    return {"type": "message", "id": i, "parentId": parent, "timestamp": TS, "message": m}


def comp(i, parent, summary, kept):
    return {"type": "compaction", "id": i, "parentId": parent, "timestamp": TS,
            "summary": summary, "firstKeptEntryId": kept, "tokensBefore": 30000}


def one_summary(out, name, n):
    lines = [header(), msg("m0", None, "user", "start /srv/app"),
             msg("m1", "m0", "assistant", "ok"), msg("m2", "m1", "user", "more"),
             msg("m3", "m2", "assistant", "done"),
             comp("c1", "m3", " ".join("/srv/p%d" % k for k in range(n)), "m2"),
             msg("m4", "c1", "user", "next")]
    host(out, name, lines)


def keep_early(out, n):
    lines = [header(), msg("m0", None, "user", "start"), msg("m1", "m0", "assistant", "ok /srv/keep")]
    parent = "m1"
    for k in range(n):
        u, c = "u%d" % k, "c%d" % k
        lines.append(msg(u, parent, "user", "turn %d about /srv/t%d" % (k, k)))
        lines.append(comp(c, u, "summary %d" % k, "m1"))
        parent = c
    host(out, "keep-early", lines)


def urls(out, n):
    big = " ".join("https://h%d.io/%x" % (k * 7919 % 100003, k) for k in range(n))
    lines = [header(), msg("m0", None, "user", big), msg("m1", "m0", "assistant", "ok"),
             msg("m2", "m1", "user", "more"), msg("m3", "m2", "assistant", "done"),
             comp("c1", "m3", "short summary", "m2"), msg("m4", "c1", "user", "next")]
    host(out, "urls-600k", lines)


def gateway_log(out, mb):
    line = ("2026-11-21T04:00:00.000Z [agent] memoryFlush triggered: sessionKey=agent:main:main"
            " tokenCount=%d threshold=24000\n")
    with open(os.path.join(out, "gateway.log"), "w") as f:
        written, k = 0, 0
        while written < mb << 20:
            l = line % k
            f.write(l)
            written += len(l)
            k += 1


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    one_summary(out, "paths-200k", 200000)
    one_summary(out, "paths-500k", 500000)
    keep_early(out, 20000)
    urls(out, 600000)
    gateway_log(out, 265)
