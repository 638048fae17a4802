#!/usr/bin/env bash
# A memory written the way an agent writes it by hand (for trying the app as a user would:
#   scripts/make_agent_memory.sh /tmp/mem && pmem-tui --root /tmp/mem): odd index shapes, fences, an orphan, Latin-1, a FIFO,
# a symlink out of the root, a secret, CJK.
set -e
R=${1:?dir}
if [ -e "$R" ]; then echo "$R exists: give a new folder" >&2; exit 1; fi
mkdir -p "$R"/_core "$R"/projects/alpha "$R"/notes "$R"/_archive/_trash
cat > "$R"/_core/identity.md <<'X'
# Identity
## Summary
The user is Ana, a backend engineer who prefers terse answers.
X
cat > "$R"/_index.md <<'X'
# Memory index

- [projects/alpha/plan.md](projects/alpha/plan.md) — Alpha migration plan, phase 2
* `notes/tools.md`: tools Ana uses daily
- notes/cjk.md - 中文笔记：部署流程
1. [Decisions](projects/alpha/decisions.md) | decisions log

```
- notes/not-a-route.md - inside a fence
```
<!-- - notes/commented.md - commented out -->
- notes/secret.md — credentials note (agent wrote a key)
X
cat > "$R"/projects/alpha/plan.md <<'X'
# Alpha plan
## Summary
Move the billing service to Postgres 16 by March; phase 2 covers the read replicas.

## Steps
- [x] schema dump
- [ ] replica lag alarms
X
printf '# Decisions\n\n## Summary\nWhy we chose Postgres over MySQL.\n\n2026-10-01: chose pgbouncer.\n' > "$R"/projects/alpha/decisions.md
printf '# Tools\n## Summary\nripgrep, fzf, tmux, neovim.\n' > "$R"/notes/tools.md
printf '# 中文笔记\n## 摘要\n部署流程：先构建，再发布。\n\n正文：使用蓝绿部署。\n' > "$R"/notes/cjk.md
printf '# Secret\n## Summary\nA note where the agent pasted a key.\n\naws_secret_access_key = AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n' > "$R"/notes/secret.md
printf '# Orphan\n## Summary\nNot in the index.\n' > "$R"/notes/orphan.md
printf '# Caf\xe9 notes\n## Summary\nLatin-1 bytes: \xe9t\xe9.\n' > "$R"/notes/latin1.md
mkfifo "$R"/notes/pipe.md
mkdir -p /tmp/outside_root && printf '# Outside\nsecret outside\n' > /tmp/outside_root/x.md
ln -s /tmp/outside_root "$R"/notes/linked
ln -s /etc/passwd "$R"/notes/passwd.md
cat > "$R"/_archive/_index.md <<'X'
# Archive index

## notes/old.md
- archived: 2026-11-01
- reason: superseded by tools.md
X
printf '# Old\n## Summary\nOld tools list.\n' > "$R"/_archive/old.md
echo "made $R"
