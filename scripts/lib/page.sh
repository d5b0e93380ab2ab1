#!/usr/bin/env bash
# The one header every page under results/ carries: the command that wrote it, the commit, the date,
# the JDK, the cores, and the servers with what each promises about an acknowledged write.
#
# Sourced by the results scripts:
#
#   source scripts/lib/page.sh
#   page_stamp results/x/README.md "Title for a page without one" "bash scripts/x.sh" redis postgres
#
# or run on its own (the same arguments):
#
#   bash scripts/lib/page.sh stamp FILE TITLE COMMAND SERVER...
#   bash scripts/lib/page.sh header COMMAND SERVER...
#
# SERVER is one of the kinds below; the header names each with its durability. page_stamp replaces
# the header a page already carries, so stamping twice leaves one header. ResultsPagesTest reads the
# same fields back and fails when a page lacks one or names another commit than the rest.

# The commit of the code that ran: HEAD, marked when the tree differs from it outside results/.
page_commit() {
  local commit
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD -- . ':(exclude)results' 2>/dev/null; then
    commit="$commit (with uncommitted changes)"
  fi
  echo "$commit"
}

# What each kind of server is, as the lab provisions it, and what it promises.
page_server() {
  case "$1" in
    memory) echo "memory: the in-memory store inside the lab's JVM; nothing outlives the process" ;;
    memory-servers) echo "memory: the in-memory store inside each measured server's own JVM; nothing outlives the process" ;;
    jvm) echo "none: the benchmark runs inside one JVM" ;;
    redis) echo "redis 6.2.11 (bundled binary, private instance on 127.0.0.1): no persistence (save \"\", appendonly no), so every record is lost when it stops" ;;
    redis-durable) echo "redis 6.2.11 (bundled binary, private instance on 127.0.0.1): appendonly yes, appendfsync everysec, so a crash loses at most about a second of acknowledged writes" ;;
    redis-cluster) echo "redis-cluster 6.2.11 (private local cluster of the bundled binary, 3 masters + 3 replicas on 127.0.0.1): no persistence, and replication is asynchronous, so a failover can lose acknowledged writes" ;;
    postgres) echo "postgres 14.15 (bundled binary, private instance on 127.0.0.1): fsync=off, synchronous_commit=off, so a crash of the machine can lose committed rows" ;;
    postgres-durable) echo "postgres 14.15 (bundled binary, private instance on 127.0.0.1): fsync=on, synchronous_commit=on, so a committed row survives a crash" ;;
    kafka) echo "kafka 4.1.2 (one KRaft broker+controller inside the lab's JVM, private, on 127.0.0.1): replication factor 1, producers acks=all on that one replica, the log flushed by the OS (no fsync per record), so a crash of the machine can lose acknowledged records and committed offsets" ;;
    *) echo "page.sh: unknown server kind '$1' (known: memory memory-servers jvm redis redis-durable redis-cluster postgres postgres-durable kafka)" >&2
       return 2 ;;
  esac
}

# The header block for COMMAND run on SERVER..., between two markers so that a restamp replaces it.
page_header() {
  local command="$1"; shift
  [[ $# -gt 0 ]] || { echo "page.sh: a header names at least one server kind" >&2; return 2; }
  local servers="" kind line
  for kind in "$@"; do
    line="$(page_server "$kind")" || return 2
    servers="${servers:+$servers; }$line"
  done
  local jdk
  jdk="$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.runtime.version/ {print $2}')"
  echo "<!-- page header: scripts/lib/page.sh -->"
  echo "* command: \`$command\`"
  echo "* commit: \`$(page_commit)\`"
  echo "* date: $(date -u +%Y-%m-%d) (UTC)"
  echo "* JDK: ${jdk:-unknown}"
  echo "* cores: $(nproc) ($(uname -s) $(uname -m)), a machine shared with other work"
  echo "* servers: $servers"
  echo "<!-- end of page header -->"
}

# Writes the header into FILE after its first '# ' title (a title is added when it has none),
# replacing a header it already carries. The page is rewritten through a temporary file.
page_stamp() {
  local file="$1" title="$2" command="$3"; shift 3
  [[ -f "$file" ]] || { echo "page.sh: no page at $file" >&2; return 2; }
  local header tmp
  header="$(page_header "$command" "$@")" || return 2
  if grep -q '^<!-- page header: ' "$file" && ! grep -q '^<!-- end of page header -->' "$file"; then
    echo "page.sh: $file has a header start without its end; not stamped" >&2
    return 2
  fi
  tmp="$(mktemp)"
  PAGE_TITLE="$title" PAGE_HEADER="$header" awk '
    BEGIN { title = ENVIRON["PAGE_TITLE"]; header = ENVIRON["PAGE_HEADER"]; stamped = 0; skipping = 0 }
    /^<!-- page header: / { skipping = 1; next }
    skipping && /^<!-- end of page header -->/ { skipping = 0; skipblank = 1; next }
    skipping { next }
    skipblank && /^$/ { skipblank = 0; next }
    { skipblank = 0 }
    !stamped && NR == 1 && /^# / { print; print ""; print header; stamped = 1; next }
    !stamped { print "# " title; print ""; print header; print ""; stamped = 1 }
    { print }
    END { if (!stamped) { print "# " title; print ""; print header } }
  ' "$file" > "$tmp" || { rm -f "$tmp"; return 1; }
  # Rewritten in place, so that the page keeps its mode.
  cat "$tmp" > "$file"
  rm -f "$tmp"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  case "${1:-}" in
    stamp) shift; [[ $# -ge 4 ]] || { echo "usage: page.sh stamp FILE TITLE COMMAND SERVER..." >&2; exit 2; }
           page_stamp "$@" ;;
    header) shift; [[ $# -ge 2 ]] || { echo "usage: page.sh header COMMAND SERVER..." >&2; exit 2; }
            page_header "$@" ;;
    *) echo "usage: page.sh stamp FILE TITLE COMMAND SERVER... | page.sh header COMMAND SERVER..." >&2; exit 2 ;;
  esac
fi
