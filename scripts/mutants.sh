#!/usr/bin/env bash
# The nemesis's mutation score: each deliberate double-charge bug of mutants/mutants.tsv, applied to a
# scratch copy of the files its patch touches, built, and run under `lab nemesis` on each store it
# lists for a bounded time on several seeds; each run is caught (the nemesis exits 1 with a
# violation) or missed (it exits 0). Writes results/nemesis/mutants.md (--quick: results/nemesis/
# quick/mutants.md, not committed).
#
#   bash scripts/mutants.sh                       every mutant, every store it lists, 3 seeds, 120s each
#   bash scripts/mutants.sh --quick               30s and one seed
#   bash scripts/mutants.sh --only ID,... --stores memory,redis --seeds 2 --duration 60s
#   bash scripts/mutants.sh --seed-list 11,12     these seeds (default: fresh ones, printed, the same for every mutant)
#   bash scripts/mutants.sh --control             also the tree without a patch, on the same stores and seeds
#   bash scripts/mutants.sh --duration 30s --longer 2m
#                                                 a run missed in 30s is made again on its seed for 2m (with
#                                                 --control, beside a control of 2m on that store and seed)
#   bash scripts/mutants.sh --resume ...          keeps the run in .mutants-run/ and, started again with the
#                                                 same arguments on the same commit, goes on where it stopped
#                                                 (the whole set takes hours; a run stopped midway loses only
#                                                 the run in progress, a mutant's longer run its shorter one too)
#   bash scripts/mutants.sh --jobs 3 ...          three nemesis runs at a time (default one); a run over HTTP (the
#                                                 filters, the sample), which fills the machine, still runs alone
#   bash scripts/mutants.sh --resume --page-only ...
#                                                 writes the page from the run kept in .mutants-run as it stands,
#                                                 running nothing (a run stopped for good: the runs it did not
#                                                 make are listed as not run); its own arguments, any commit
#   bash scripts/mutants.sh --list                the mutants and their stores
#   bash scripts/mutants.sh --build-only          builds every mutant (and checks it shadows the jar), runs none
#   bash scripts/mutants.sh --require-caught      as a gate: exits 1 when any mutant's run is not caught (with
#                                                 --longer, a catch in the longer run counts)
#
# A mutant is built without Maven: its patched .java files are compiled with javac --release 17
# against lab/target/lab.jar (the shaded jar, built first if missing) into a scratch classes folder,
# its patched resources (Lua scripts, SQL) copied there, and the nemesis run as
# `java -cp SCRATCH:lab.jar dev.idemlab.lab.cli.LabMain nemesis ...`, so the patched classes and
# resources shadow the jar's (checked for each mutant before it runs); the child JVMs the nemesis
# starts inherit that class path. A mutant of the Spring Boot sample (a patch under
# examples/spring-boot-payments/) or of the starter it runs on (idempotency/idempotency-spring-boot-starter/,
# not in the lab's jar) is compiled against the sample's own jar and written into a copy of it, the patched
# classes replacing the jar's, the starter's inside the copy's nested starter jar (each checked to replace
# one), and the nemesis named that copy (-Didemlab.sample.jar), which it starts for --through sample. One nemesis at a time unless --jobs says more; every control
# finishes before the first mutant runs. Exits 0 when the page was written (missed
# mutants are on it), 1 when a mutant did not build, did not shadow the jar, or the control run found
# a violation (or, with --require-caught, a mutant's run was not caught), 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

manifest=mutants/mutants.tsv
jar=lab/target/lab.jar
repo="$(pwd)"
sample_jar=examples/spring-boot-payments/target/spring-boot-payments.jar
known_stores=(memory redis postgres redis-cluster)
command_line="bash scripts/mutants.sh${*:+ $*}"

usage() {
  [[ $# -gt 0 ]] && echo "mutants.sh: $*" >&2
  echo "usage: bash scripts/mutants.sh [--quick] [--only ID,...] [--stores STORE,...] [--seeds N] [--seed-list S,...]" >&2
  echo "                               [--duration TIME] [--longer TIME] [--control] [--jobs N] [--resume] [--require-caught]" >&2
  echo "                               [--page-only] [--list] [--build-only]" >&2
  exit 2
}

# The manifest's rows: id, stores, args, bug (comments and the column names left out).
rows() {
  grep -v '^#' "$manifest" | grep -v '^id	' | grep -v '^[[:space:]]*$'
}

only=""; stores_wanted=""; seeds=""; seed_list=""; duration=""; longer=""; jobs_wanted=1; resume=0; page_only=0; quick=0; control=0; build_only=0; require_caught=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --only) [[ $# -ge 2 ]] || usage "--only needs a list of mutant ids"; only="$2"; shift 2 ;;
    --stores) [[ $# -ge 2 ]] || usage "--stores needs a list of stores"; stores_wanted="$2"; shift 2 ;;
    --seeds) [[ $# -ge 2 ]] || usage "--seeds needs a number"; seeds="$2"; shift 2 ;;
    --seed-list) [[ $# -ge 2 ]] || usage "--seed-list needs seeds"; seed_list="$2"; shift 2 ;;
    --duration) [[ $# -ge 2 ]] || usage "--duration needs a time"; duration="$2"; shift 2 ;;
    --longer) [[ $# -ge 2 ]] || usage "--longer needs a time"; longer="$2"; shift 2 ;;
    --jobs) [[ $# -ge 2 ]] || usage "--jobs needs a number"; jobs_wanted="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --control) control=1; shift ;;
    --resume) resume=1; shift ;;
    --page-only) page_only=1; shift ;;
    --require-caught) require_caught=1; shift ;;
    --build-only) build_only=1; shift ;;
    --list) rows | awk -F'\t' '{ printf "%-36s %-24s %s\n", $1, $2, ($3 == "-" ? "" : $3) }'; exit 0 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done

[[ -f "$manifest" ]] || usage "no manifest at $manifest"
if [[ -n "$seeds" && -n "$seed_list" ]]; then usage "--seeds and --seed-list exclude each other"; fi
[[ $page_only == 0 || $resume == 1 ]] || usage "--page-only writes the page of a kept run: it needs --resume"
[[ "$jobs_wanted" =~ ^[1-9]$ ]] || usage "--jobs must be 1 to 9, got '$jobs_wanted'"
if ((jobs_wanted > 1)); then
  for var in IDEMLAB_REDIS_URL IDEMLAB_PG_URL; do
    # Runs at once on one server would reach each other's records and faults (a restart, a lock held).
    [[ -z "${!var:-}" ]] || usage "--jobs $jobs_wanted needs a server of its own for each run: unset $var or run with --jobs 1"
  done
fi
if [[ -n "$seeds" ]] && ! [[ "$seeds" =~ ^[1-9][0-9]?$ ]]; then usage "--seeds must be 1 to 99, got '$seeds'"; fi
if [[ -n "$seed_list" ]] && ! [[ "$seed_list" =~ ^-?[0-9]+(,-?[0-9]+)*$ ]]; then
  usage "--seed-list must be numbers separated by commas, got '$seed_list'"
fi
if [[ -n "$duration" ]] && ! [[ "$duration" =~ ^[1-9][0-9]*(s|m)$ ]]; then
  usage "--duration must be a number of seconds or minutes (30s, 2m), got '$duration'"
fi
if [[ -n "$longer" ]] && ! [[ "$longer" =~ ^[1-9][0-9]*(s|m)$ ]]; then
  usage "--longer must be a number of seconds or minutes (30s, 2m), got '$longer'"
fi
seconds_of() { local t="$1"; [[ "$t" == *m ]] && echo $(( ${t%m} * 60 )) || echo "${t%s}"; }
if [[ $quick == 1 ]]; then
  duration="${duration:-30s}"; seeds="${seeds:-1}"
  out=results/nemesis/quick/mutants.md
else
  duration="${duration:-120s}"; seeds="${seeds:-3}"
  out=results/nemesis/mutants.md
fi

if [[ -n "$longer" ]] && (( $(seconds_of "$longer") <= $(seconds_of "$duration") )); then
  usage "--longer ($longer) must be longer than the runs' duration ($duration)"
fi

declare -A known_ids=()
while IFS=$'\t' read -r id stores args bug; do
  [[ -f "mutants/$id.patch" ]] || { echo "mutants.sh: $manifest names $id, but mutants/$id.patch is missing" >&2; exit 2; }
  known_ids[$id]=1
done < <(rows)
IFS=',' read -r -a only_ids <<<"$only"
for id in "${only_ids[@]}"; do
  [[ -n "${known_ids[$id]:-}" ]] || usage "--only: no mutant named '$id' (see --list)"
done
IFS=',' read -r -a store_filter <<<"$stores_wanted"
for store in "${store_filter[@]}"; do
  [[ " ${known_stores[*]} " == *" $store "* ]] || usage "--stores: '$store' is not one of ${known_stores[*]}"
done
if [[ -n "$seed_list" ]]; then
  IFS=',' read -r -a seed_values <<<"$seed_list"
else
  seed_values=()
  for ((i = 0; i < seeds; i++)); do seed_values+=("$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')"); done
fi

# The runs: mutant, store, args, in the manifest's order; the control first when asked for.
plan=()
chosen() { [[ -z "$only" || ",$only," == *",$1,"* ]]; }
store_chosen() { [[ -z "$stores_wanted" || ",$stores_wanted," == *",$1,"* ]]; }
while IFS=$'\t' read -r id stores args bug; do
  chosen "$id" || continue
  IFS=',' read -r -a listed <<<"$stores"
  for store in "${listed[@]}"; do store_chosen "$store" && plan+=("$id	$store	$args"); done
done < <(rows)
[[ ${#plan[@]} -gt 0 ]] || usage "no mutant lists any of the stores asked for"
servers=()
for store in "${known_stores[@]}"; do
  printf '%s\n' "${plan[@]}" | cut -f2 | grep -qx "$store" && servers+=("$store")
done
# The control: the tree without a patch, first, on every store the mutants run on, with every set of
# extra arguments they run with there (a mutant is read beside a control of the same run settings).
if [[ $control == 1 ]]; then
  controls=()
  for store in "${servers[@]}"; do
    while IFS= read -r args; do controls+=("none	$store	$args"); done \
      < <(printf '%s\n' "${plan[@]}" | awk -F'\t' -v store="$store" '$2 == store && !seen[$3]++ { print $3 }')
  done
  plan=("${controls[@]}" "${plan[@]}")
fi

if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -ntp -q package -DskipTests -pl lab -am
fi
page_tmp=""
# The runs still going when the script stops early (killed, or failed): each run's shell first, so that it records
# no row for a nemesis stopped midway (a kept run makes that run again), then its nemesis JVM, whose shutdown
# stops its servers; waits for them.
stop_runs() {
  local p kids=()
  for p in $(jobs -p); do
    kids+=($(pgrep -P "$p" || true))
    kill "$p" 2>/dev/null || true
  done
  [[ ${#kids[@]} -eq 0 ]] || { kill "${kids[@]}" 2>/dev/null || true; }
  wait 2>/dev/null || true
  for p in "${kids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 1; done; done
}
# What a kept run must match to go on: the commit and every argument but the seeds (kept from its start).
settings="commit=$(git log -1 --format=%h -- . ':(exclude)results')$(git diff --quiet HEAD -- . ':(exclude)results' || echo ' (with uncommitted changes)') only=$only stores=$stores_wanted seeds=${seed_list:-$seeds} duration=$duration longer=$longer control=$control quick=$quick jobs=$jobs_wanted"
if [[ $resume == 1 && $build_only == 0 ]]; then
  work="$repo/.mutants-run"
  # What a kept run must match: everything, or for --page-only, which runs nothing, everything but the commit (a
  # run kept from an earlier commit is read as that commit made it, its page header naming that commit).
  comparable() { if [[ $page_only == 1 ]]; then sed -E 's/^commit=[0-9a-f]+( \(with uncommitted changes\))? //'; else cat; fi; }
  if [[ $page_only == 1 && ! -f "$work/settings" ]]; then
    usage "--page-only: no run kept in .mutants-run"
  elif [[ -f "$work/settings" && "$(comparable < "$work/settings")" != "$(comparable <<<"$settings")" ]]; then
    echo "mutants.sh: .mutants-run holds a run of other settings$( ((page_only)) || echo ' or another commit'):" >&2
    echo "  it:  $(cat "$work/settings")" >&2
    echo "  now: $settings" >&2
    ((page_only)) || echo "remove .mutants-run to start afresh, or run with its arguments on its commit" >&2
    exit 2
  elif [[ -f "$work/settings" ]]; then
    read -r -a seed_values < "$work/seeds"
    if [[ $page_only == 1 ]]; then
      echo "the page of the run kept in .mutants-run ($(cut -d' ' -f1 "$work/settings")): $(wc -l < "$work/results.tsv") runs recorded"
    else
      echo "resuming the run kept in .mutants-run: $(wc -l < "$work/results.tsv") runs recorded already"
    fi
  else
    mkdir -p "$work"
    echo "$settings" > "$work/settings.tmp"
    echo "${seed_values[*]}" > "$work/seeds"
    : > "$work/results.tsv"
    page_header "$command_line" "${servers[@]}" > "$work/header"
    cp "$jar" "$work/lab.jar"
    mv "$work/settings.tmp" "$work/settings"
  fi
  cleanup() { stop_runs; [[ -n "$page_tmp" ]] && rm -f "$page_tmp"; return 0; }
else
  work="$(mktemp -d)"
  cleanup() { stop_runs; rm -rf "$work"; [[ -n "$page_tmp" ]] && rm -f "$page_tmp"; return 0; }
  # The commit and the jar as they are now: the runs take long, and the tree may move meanwhile.
  page_header "$command_line" "${servers[@]}" > "$work/header"
  cp "$jar" "$work/lab.jar"
fi
trap cleanup EXIT
trap 'exit 130' INT TERM
header="$(cat "$work/header")"
jar="$work/lab.jar"
total=$(( ${#plan[@]} * ${#seed_values[@]} ))
[[ $build_only == 1 ]] || echo "mutants: ${#plan[@]} mutant-store pairs x ${#seed_values[@]} seeds (${seed_values[*]}) x $duration = $total nemesis runs, $( ((jobs_wanted == 1)) && echo "one at a time" || echo "$jobs_wanted at a time (over HTTP alone)")${longer:+, a missed one again for $longer}"
[[ $build_only == 1 ]] || echo "writing $out; scratch in $work"

# Checks that the scratch classes folder shadows the jar: each patched class or resource resolves there.
cat > "$work/Shadows.java" <<'EOF'
public class Shadows {
    public static void main(String[] args) {
        for (String resource : args) {
            java.net.URL url = ClassLoader.getSystemResource(resource);
            if (url == null || !url.getProtocol().equals("file")) {
                System.out.println(resource + " resolves to " + url);
                System.exit(1);
            }
        }
    }
}
EOF

# Writes a copy of a Spring Boot jar ($1) to $2 with the classes under $3 in place of the jar's
# BOOT-INF/classes entries of the same name, and the classes under $4 in place of the entries of the same
# name inside its nested BOOT-INF/lib jars (a patched library class: the starter's), every other entry
# copied as it was (nested jars stay stored, as the jar's launcher needs them); fails when a class
# replaces nothing.
cat > "$work/Repack.java" <<'EOF'
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.zip.*;

public class Repack {
    public static void main(String[] args) throws Exception {
        Map<String, byte[]> replacements = read(Path.of(args[2]), "BOOT-INF/classes/");
        Map<String, byte[]> inLibraries = read(Path.of(args[3]), "");
        Set<String> replaced = new HashSet<>();
        try (ZipFile in = new ZipFile(args[0]);
             ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(Path.of(args[1])))) {
            for (ZipEntry entry : Collections.list(in.entries())) {
                byte[] replacement = replacements.get(entry.getName());
                byte[] bytes = replacement != null ? replacement : in.getInputStream(entry).readAllBytes();
                if (replacement != null) {
                    replaced.add(entry.getName());
                }
                if (entry.getName().startsWith("BOOT-INF/lib/") && entry.getName().endsWith(".jar")
                        && !inLibraries.isEmpty()) {
                    bytes = rewrite(bytes, inLibraries, replaced);
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                if (entry.getMethod() == ZipEntry.STORED) {
                    CRC32 crc = new CRC32();
                    crc.update(bytes);
                    copy.setMethod(ZipEntry.STORED);
                    copy.setSize(bytes.length);
                    copy.setCompressedSize(bytes.length);
                    copy.setCrc(crc.getValue());
                }
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Set<String> wanted = new TreeSet<>(replacements.keySet());
        wanted.addAll(inLibraries.keySet());
        for (String name : wanted) {
            if (!replaced.contains(name)) {
                System.out.println(name + " replaces nothing in " + args[0]);
                System.exit(1);
            }
        }
    }

    /** The files under {@code dir} (none when it is absent), each by its path there after {@code prefix}. */
    private static Map<String, byte[]> read(Path dir, String prefix) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        if (!Files.isDirectory(dir)) {
            return files;
        }
        try (var walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(prefix + dir.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
            }
        }
        return files;
    }

    /** A nested jar's bytes with {@code classes}' entries in place of its own of the same name. */
    private static byte[] rewrite(byte[] jar, Map<String, byte[]> classes, Set<String> replaced) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean changed = false;
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar));
             ZipOutputStream out = new ZipOutputStream(bytes)) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                byte[] replacement = classes.get(entry.getName());
                byte[] content = replacement != null ? replacement : in.readAllBytes();
                if (replacement != null) {
                    if (!replaced.add(entry.getName())) {
                        throw new IllegalStateException(entry.getName() + " is in more than one of the jar's libraries");
                    }
                    changed = true;
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                out.write(content);
                out.closeEntry();
            }
        }
        return changed ? bytes.toByteArray() : jar;
    }
}
EOF

# Builds mutant $1 into $work/$1/classes (a mutant of the sample into $work/$1/sample.jar); prints why
# not and returns 1 when it cannot.
build_mutant() {
  local id="$1" dir="$work/$1" patch file
  patch="$(pwd)/mutants/$id.patch"
  rm -rf "$dir"
  mkdir -p "$dir/tree" "$dir/classes"
  local files=() sources=() shadowed=()
  mapfile -t files < <(git apply --numstat "$patch" | cut -f3)
  for file in "${files[@]}"; do
    mkdir -p "$dir/tree/$(dirname "$file")"
    cp "$file" "$dir/tree/$file"
  done
  # The scratch tree is no repository: where it lies inside one (a kept run's), git must not find that one, or it
  # would read the patch's paths from that repository's root and silently skip them.
  (cd "$dir/tree" && GIT_CEILING_DIRECTORIES="$dir" git apply "$patch") > "$dir/build.log" 2>&1 \
    || { echo "the patch does not apply: $(head -n 1 "$dir/build.log")"; return 1; }
  local changed=0
  for file in "${files[@]}"; do cmp -s "$file" "$dir/tree/$file" || changed=1; done
  [[ $changed == 1 ]] || { echo "the patch changed none of the files it names"; return 1; }
  local sample_sources=() library_sources=()
  for file in "${files[@]}"; do
    case "$file" in
      examples/spring-boot-payments/src/main/java/*.java)
        sample_sources+=("$dir/tree/$file") ;;
      idempotency/idempotency-spring-boot-starter/src/main/java/*.java)
        # Not in the lab's jar: the starter runs in the sample's JVM only (--through sample).
        library_sources+=("$dir/tree/$file") ;;
      examples/*|idempotency/idempotency-spring-boot-starter/*)
        # Would land in the lab's scratch folder, which the sample's JVM never reads: the mutant would run unpatched.
        echo "the patch touches $file: only the sample's and the starter's Java sources can be patched into the sample's jar"
        return 1 ;;
      */src/main/java/*.java)
        sources+=("$dir/tree/$file")
        shadowed+=("${file#*/src/main/java/}") ;;
      */src/main/resources/*)
        mkdir -p "$dir/classes/$(dirname "${file#*/src/main/resources/}")"
        cp "$dir/tree/$file" "$dir/classes/${file#*/src/main/resources/}"
        shadowed+=("${file#*/src/main/resources/}") ;;
      *) echo "the patch touches $file, neither main Java source nor resource"; return 1 ;;
    esac
  done
  if [[ ${#sources[@]} -gt 0 ]] && ! javac --release 17 -nowarn -encoding UTF-8 -parameters -cp "$jar" -d "$dir/classes" \
      "${sources[@]}" >> "$dir/build.log" 2>&1; then
    echo "javac failed: $(grep -m1 'error:' "$dir/build.log")"; return 1
  fi
  if [[ ${#sample_sources[@]} -gt 0 || ${#library_sources[@]} -gt 0 ]]; then
    build_sample_mutant "$dir" "${#library_sources[@]}" "${library_sources[@]}" "${sample_sources[@]}" || return 1
  fi
  [[ ${#shadowed[@]} -gt 0 ]] || return 0
  shadowed=("${shadowed[@]/%.java/.class}")
  if ! java -cp "$dir/classes:$jar" "$work/Shadows.java" "${shadowed[@]}" >> "$dir/build.log" 2>&1; then
    echo "the patched classes do not shadow the jar's: $(tail -n 1 "$dir/build.log")"; return 1
  fi
}

# Compiles a sample mutant's patched sources against the sample's jar and writes $1/sample.jar with them:
# the first $2 sources are the starter's, whose classes replace theirs inside the jar's nested libraries,
# the rest the sample's own, whose classes replace the sample's.
build_sample_mutant() {
  local dir="$1" count="$2"; shift 2
  local library_sources=("${@:1:$count}") sample_sources=("${@:$((count + 1))}")
  if [[ ! -f "$sample_jar" ]]; then
    echo "building $sample_jar" >&2
    ./mvnw -B -ntp -q package -DskipTests -pl examples/spring-boot-payments -am >> "$dir/build.log" 2>&1 \
      || { echo "the sample's jar did not build: $(tail -n 1 "$dir/build.log")"; return 1; }
  fi
  mkdir -p "$dir/sample" "$dir/sample-classes" "$dir/library-classes"
  (cd "$dir/sample" && jar xf "$repo/$sample_jar" BOOT-INF) >> "$dir/build.log" 2>&1 \
    || { echo "cannot read $sample_jar"; return 1; }
  local classpath="$dir/sample/BOOT-INF/classes:$dir/sample/BOOT-INF/lib/*"
  if [[ ${#library_sources[@]} -gt 0 ]] && ! javac --release 17 -nowarn -encoding UTF-8 -proc:none -parameters \
      -cp "$classpath" -d "$dir/library-classes" "${library_sources[@]}" >> "$dir/build.log" 2>&1; then
    echo "javac failed on the starter: $(grep -m1 'error:' "$dir/build.log")"; return 1
  fi
  if [[ ${#sample_sources[@]} -gt 0 ]] && ! javac --release 17 -nowarn -encoding UTF-8 -proc:none -parameters \
      -cp "$dir/library-classes:$classpath" -d "$dir/sample-classes" "${sample_sources[@]}" >> "$dir/build.log" 2>&1; then
    echo "javac failed on the sample: $(grep -m1 'error:' "$dir/build.log")"; return 1
  fi
  if ! java "$work/Repack.java" "$repo/$sample_jar" "$dir/sample.jar" "$dir/sample-classes" "$dir/library-classes" \
      >> "$dir/build.log" 2>&1; then
    echo "the sample's patched classes replace nothing: $(tail -n 1 "$dir/build.log")"; return 1
  fi
}

if [[ $build_only == 1 ]]; then
  for id in $(printf '%s\n' "${plan[@]}" | cut -f1 | awk '!seen[$0]++'); do
    if why="$(build_mutant "$id")"; then echo "built $id"; else echo "mutant $id: not built: $why" >&2; status=1; fi
  done
  exit "${status:-0}"
fi

results="$work/results.tsv"
[[ $resume == 1 ]] || : > "$results"
status=0
n=0
declare -A built=()

# One nemesis run of mutant $1 (none: the tree as committed) on store $2 with extra arguments $3 (or -), seed
# $4, for $5, logged to $6.out and $6.err; reads its report into verdict, after, rules, note and beyond.
nemesis_run() {
  local id="$1" store="$2" args="$3" seed="$4" length="$5" log="$6" classes="" rc=0 violations
  local sample=() extra=()
  [[ "$id" != none ]] && classes="$work/$id/classes:"
  [[ "$id" != none && -f "$work/$id/sample.jar" ]] && sample=("-Didemlab.sample.jar=$work/$id/sample.jar")
  [[ "$args" != - ]] && read -r -a extra <<<"$args"
  java "${sample[@]}" -cp "${classes}$jar" dev.idemlab.lab.cli.LabMain nemesis --store "$store" --seed "$seed" \
    --duration "$length" "${extra[@]}" > "$log.out" 2> "$log.err" || rc=$?
  # The first pass that flags something: how many violations, and when the first showed. The second pass
  # (the same schedule, the provider deduplicating on the key) runs only when the first flagged nothing,
  # and its times count from its own start: the first pass's length in all is added.
  read -r violations after < <(awk '
    /^nemesis  store: / && first == "" && match($0, /[0-9.]+ s in all/) { first = substr($0, RSTART, RLENGTH - 9) + 0 }
    /^same schedule/ { second = 1 }
    /^ *violations: [1-9]/ && n == "" {
      n = $2; sub(/,$/, "", n)
      if (match($0, /the first shown by [0-9.]+ s/)) t = sprintf("%.3f s", substr($0, RSTART + 19, RLENGTH - 21) + (second ? first : 0))
    }
    END { print (n == "" ? 0 : n), t }' "$log.out")
  rules="$(sed -n '/^ *violations: [1-9]/,/^same schedule/p' "$log.out" | grep -oE '^ {2,4}[a-z][a-z-]+ key [0-9]+:' \
    | awk '{ print $1 }' | sort | uniq -c | sort -rn | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }' \
    || true)"
  # The keys the first pass flags, each with when its unexplained charge began (empty for other rules).
  awk '/^ *violations: [1-9]/ { p = 1; next } /^same schedule/ { p = 0 } !p { next }
    /^ +[a-z][a-z-]+ key [0-9]+:/ { if (k != "") print k "\t" t; k = $3; sub(/:$/, "", k); t = ""; next }
    /UNEXPLAINED/ && t == "" && match($0, /action at [0-9.]+ s/) { t = substr($0, RSTART + 10, RLENGTH - 12) }
    END { if (k != "") print k "\t" t }' "$log.out" > "$log.keys"
  # The control this run is read beside: the same store, seed, length and extra arguments.
  local control_keys="$work/control-$store-${args//[^A-Za-z0-9]/_}-$seed-$length.keys"
  [[ "$id" == none ]] && cp "$log.keys" "$control_keys"
  # Beside a control run of the same store and seed (the same workload, key for key): the violations on
  # keys the tree without a patch did not flag, and when the first of them began; "none" when every
  # key the mutant's run flags was flagged there too.
  beyond=""
  if [[ "$id" != none && $rc == 1 && -f "$control_keys" ]]; then
    beyond="$(awk -F'\t' 'FILENAME == ARGV[1] { flagged[$1] = 1; next }
      !($1 in flagged) { n++; if ($2 != "" && (best == "" || $2 + 0 < best + 0)) best = $2 }
      END { print (n == 0 ? "none" : (best == "" ? "?" : best)) }' "$control_keys" "$log.keys")"
  fi
  note=""
  if [[ $rc == 1 && "${violations:-0}" -gt 0 && "$beyond" == none ]]; then
    verdict="control's only"
    note="every key it flags was flagged without the patch too"
  elif [[ $rc == 1 && "${violations:-0}" -gt 0 ]]; then
    verdict=caught
  elif [[ $rc == 0 ]]; then
    verdict=missed
  else
    verdict="not run"
    note="exit $rc: $( (grep -v '^nemesis: ' "$log.err" || true) | head -n 1 | tr '\t|' '  ')"
  fi
  if [[ "$id" == none && "$verdict" != missed ]]; then
    note="the tree without a patch: ${note:-a violation}"
  fi
  after="${after% s}"
}

# Writes the run just read as a row of the results: mutant, store label, seed, verdict, after, rules, note,
# beyond, the run's length, and (for a run made again for longer) what the shorter one gave.
record() {
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$verdict" "$after" "$rules" "$note" "$beyond" \
    "$4" "${5:-}" >> "$results"
}

# The longer controls: one per store label and seed, made by the first run that needs it, the others waiting for
# it (runs go on at once under --jobs): its folder is taken with mkdir, and holds "done" once recorded.
longer_lock() { echo "$work/longer/${1//[^A-Za-z0-9]/_}-$2"; }
rm -rf "$work/longer"
mkdir -p "$work/longer"
# A resumed run: what it recorded before counts as it did then.
if [[ $resume == 1 ]]; then
  # A row a kill cut short (no newline at its end) is dropped: its run is made again.
  if [[ -s "$results" && -n "$(tail -c 1 "$results")" ]]; then sed -i '$d' "$results"; fi
  # (awk, not read: read takes a run of tabs, the empty columns between them, for one)
  while IFS=$'\t' read -r label seed; do
    mkdir -p "$(longer_lock "$label" "$seed")"
    touch "$(longer_lock "$label" "$seed")/done"
  done < <(awk -F'\t' -v l="$longer" 'l != "" && $1 == "none" && $9 == l { print $2 "\t" $3 }' "$results")
fi
# Whether the results hold mutant $1's run on store label $2 and seed $3 already (a resumed run).
recorded() {
  [[ $resume == 1 ]] && has_row "$@"
}
# Whether the results hold a row of mutant $1 on store label $2 and seed $3 (a control's of the runs' length).
has_row() {
  awk -F'\t' -v id="$1" -v label="$2" -v seed="$3" -v len="$duration" \
    '$1 == id && $2 == label && $3 == seed && ($1 != "none" || $9 == len) { found = 1 } END { exit !found }' "$results"
}

# Run $6 of the plan: mutant $1 on store $2 with extra arguments $3 (store label $4), seed $5, made again for
# --longer when missed; records its row. Runs in the background, one of up to --jobs.
one_run() {
  local id="$1" store="$2" args="$3" label="$4" seed="$5" n="$6" shown="" started length shorter lock
  [[ "$args" != - ]] && shown=", $args"
  echo "[$n/$total] $id on $store, seed $seed, $duration$shown"
  started=$SECONDS
  nemesis_run "$id" "$store" "$args" "$seed" "$duration" "$work/run-$n"
  echo "[$n/$total] $id on $store, seed $seed: $verdict${after:+ after $after s}${beyond:+ (beyond the control: $beyond)}${rules:+ ($rules)}${note:+; $note} ($((SECONDS - started)) s)"
  length="$duration"; shorter=""
  if [[ -n "$longer" && "$id" != none && ( "$verdict" == missed || "$verdict" == "control's only" ) ]]; then
    # Missed in the run's length: the same seed again for the longer one, beside a control of that length.
    shorter="$verdict in $duration"
    lock="$(longer_lock "$label" "$seed")"
    if [[ $control == 1 ]] && mkdir "$lock" 2>/dev/null; then
      # Those waiting for it go on even if this run ends without recording it.
      trap 'touch "$lock/done"' EXIT
      echo "$BASHPID" > "$lock/holder"
      echo "[$n/$total] none on $store, seed $seed, $longer$shown (the control for the longer run)"
      started=$SECONDS
      nemesis_run none "$store" "$args" "$seed" "$longer" "$work/run-$n-control-longer"
      record none "$label" "$seed" "$longer"
      touch "$lock/done"
      echo "[$n/$total] none on $store, seed $seed, $longer: $verdict${after:+ after $after s}${note:+; $note} ($((SECONDS - started)) s)"
    elif [[ $control == 1 ]]; then
      # Another run makes this control: the mutant is read beside it, so it waits for it.
      # (and goes on without it when the run making it is gone, killed from outside)
      while [[ ! -e "$lock/done" ]]; do
        if [[ -s "$lock/holder" ]] && ! kill -0 "$(cat "$lock/holder")" 2>/dev/null; then break; fi
        sleep 2
      done
    fi
    echo "[$n/$total] $id on $store, seed $seed, again for $longer"
    started=$SECONDS
    nemesis_run "$id" "$store" "$args" "$seed" "$longer" "$work/run-$n-longer"
    length="$longer"
    echo "[$n/$total] $id on $store, seed $seed, $longer: $verdict${after:+ after $after s}${beyond:+ (beyond the control: $beyond)}${rules:+ ($rules)}${note:+; $note} ($((SECONDS - started)) s)"
  fi
  record "$id" "$label" "$seed" "$length" "$shorter"
}

# Waits until fewer than $1 runs are going.
throttle() {
  while (( $(jobs -rp | wc -l) >= $1 )); do wait -n || true; done
}
phase=controls
for entry in "${plan[@]}"; do
  [[ $page_only == 0 ]] || break
  IFS=$'\t' read -r id store args <<<"$entry"
  # The page's store column: the store, and the run's extra arguments where it has some.
  label="$store"; [[ "$args" != - ]] && label="$store $args"
  # A mutant is read beside the control of its store and seed: every control finishes before the first mutant.
  if [[ "$id" != none && $phase == controls ]]; then wait; phase=mutants; fi
  pending=0
  for seed in "${seed_values[@]}"; do recorded "$id" "$label" "$seed" || pending=1; done
  if [[ "$id" != none && $pending == 1 ]]; then
    if [[ -z "${built[$id]:-}" ]]; then
      if why="$(build_mutant "$id")"; then built[$id]=ok; else built[$id]="$why"; fi
    fi
    if [[ "${built[$id]}" != ok ]]; then
      echo "mutant $id: not built: ${built[$id]}" >&2
      for seed in "${seed_values[@]}"; do
        n=$((n + 1))
        recorded "$id" "$label" "$seed" \
          || printf '%s\t%s\t%s\tnot built\t\t\t%s\t\t%s\t\n' "$id" "$label" "$seed" "${built[$id]}" "$duration" >> "$results"
      done
      continue
    fi
  fi
  # A run over HTTP (the servlet or WebFlux filter, the sample's Spring Boot JVM) fills the machine with its
  # clients and server: it runs alone, whatever --jobs says.
  alone=0; [[ " $args " =~ \ --through\ (http|webflux|sample)\  ]] && alone=1
  for seed in "${seed_values[@]}"; do
    n=$((n + 1))
    if recorded "$id" "$label" "$seed"; then
      echo "[$n/$total] $id on $store, seed $seed: recorded before"
      continue
    fi
    if [[ $alone == 1 ]]; then wait; else throttle "$jobs_wanted"; fi
    one_run "$id" "$store" "$args" "$label" "$seed" "$n" &
    [[ $alone == 0 ]] || wait
  done
done
wait
# A run whose shell ended without its row (killed from outside, out of memory) is "not run" on the page and in the
# exit status, never left out; kept apart from the results, so that a kept run makes it again when resumed.
unrecorded="$work/unrecorded.tsv"
: > "$unrecorded"
n=0
for entry in "${plan[@]}"; do
  IFS=$'\t' read -r id store args <<<"$entry"
  label="$store"; [[ "$args" != - ]] && label="$store $args"
  for seed in "${seed_values[@]}"; do
    n=$((n + 1))
    has_row "$id" "$label" "$seed" \
      || printf '%s\t%s\t%s\tnot run\t\t\t%s\t\t%s\t\n' "$id" "$label" "$seed" \
        "$( ((page_only)) && echo "the kept run had not made it when its page was written" \
          || echo "its run ended without recording a result; its logs: run-$n.out, run-$n.err")" "$duration" >> "$unrecorded"
  done
done
# The exit status, from the results (a resumed run's earlier rows count as they did then): a control that
# flagged, a mutant not built, and with --require-caught a mutant's run not caught.
if awk -F'\t' -v gate="$require_caught" '($1 == "none" && $4 != "missed") || $4 == "not built" \
    || (gate == 1 && $1 != "none" && $4 != "caught") || $4 == "not run" { found = 1 } END { exit !found }' \
    "$results" "$unrecorded"; then
  status=1
fi

# The results in the order of the plan (the controls first, a longer control after its own), then of the seeds,
# whatever order the runs finished in, for the page.
sorted="$work/results-in-order.tsv"
printf '%s\n' "${plan[@]}" | awk -F'\t' -v seeds="${seed_values[*]}" -v duration="$duration" '
  BEGIN { n = split(seeds, s, " "); for (i = 1; i <= n; i++) seed_rank[s[i]] = i }
  NR == FNR { label = $2 ($3 == "-" ? "" : " " $3); if (!(($1 "\t" label) in rank)) rank[$1 "\t" label] = ++r; next }
  { print rank[$1 "\t" $2] + 0 "\t" ($1 == "none" && $9 != duration ? 1 : 0) "\t" seed_rank[$3] + 0 "\t" $0 }' - "$results" "$unrecorded" \
  | sort -t$'\t' -k1,1n -k2,2n -k3,3n -s | cut -f4- > "$sorted"
# The page: one row per mutant and store, then every run, then how to rerun one.
mkdir -p "$(dirname "$out")"
page_tmp="$(mktemp "$(dirname "$out")/.mutants.md.XXXXXX")"
bug_of() { rows | awk -F'\t' -v id="$1" '$1 == id { print $4 }'; }
{
  echo "# The nemesis's mutants"
  echo
  echo "$header"
  echo
  echo "Each mutant is a deliberate double-charge bug a developer could write, kept as a patch in"
  echo "\`mutants/\` and listed in \`mutants/mutants.tsv\`. Each was applied to a scratch copy, built, and run"
  echo "under \`lab nemesis\` (the seeded workload and faults against a real store, the checker reading the"
  echo "history and the ledger) for $duration on each store it lists, on the seeds below (the same for every"
  if [[ -n "$longer" ]]; then
    beside=""; [[ $control == 1 ]] && beside=" (beside a control of $longer on that store and seed)"
    echo "mutant); a run missed in $duration was made again on the same seed for $longer$beside, and its row reads the"
    echo "longer run, marked with what the $duration run gave."
  else
    echo "mutant)."
  fi
  echo "Caught: the nemesis exited 1 with a violation; missed: it exited 0. \"Caught after\" is"
  echo "how far into the run the history first shows the violation (for a double charge, when the key's"
  echo "second charge began), from the report's \"the first shown by\" line; where only the second pass"
  echo "(the same schedule again, the provider deduplicating on the key) shows it, counted from the first"
  echo "pass's start. The target: every mutant caught"
  echo "within two minutes per store, on every seed. A missed mutant means the workload, the faults or the"
  echo "checker need more, not that the mutant is unfair."
  if [[ $control == 1 ]]; then
    echo
    echo "The control (\`none\`) is the tree without a patch, run first on each store and seed. The same seed"
    echo "gives the same workload, key for key, so a key the control flags too is not the mutant's doing:"
    echo "\"on keys the control did not flag\" is when the first violation elsewhere began, and a run whose"
    echo "every flagged key the control flagged as well counts as missed (\"control's only\")."
    [[ -z "$longer" ]] || echo "A control of $longer runs once per store and seed where a mutant's run is made again for $longer, before it."
  fi
  echo
  if [[ $page_only == 1 ]]; then
    echo "Written from the run as it stood when it was stopped for good (\`--page-only\`): the runs it had not made"
    echo "are listed as not run."
    echo
  fi
  echo "seeds: ${seed_values[*]}"
  echo
  awk -F'\t' -v longer="$longer" '$1 != "none" { runs++; if ($4 == "caught") { caught++; if ($10 != "") late++ }
      else if ($4 == "missed" || $4 == "control'"'"'s only") missed++; else other++ }
    END { printf "**%d of %d runs caught**%s, %d missed, %d not run or not built.\n", caught, runs,
      (longer == "" ? "" : sprintf(" (%d of them only when run again for %s)", late, longer)), missed, other }' "$sorted"
  echo
  echo "| mutant | store | seeds | caught | caught after (s), per seed | on keys the control did not flag (s) | violations seen | the bug |"
  echo "|---|---|---|---|---|---|---|---|"
  while IFS=$'\t' read -r id store length; do
    awk -F'\t' -v id="$id" -v store="$store" -v length_="$length" -v duration="$duration" \
        -v bug="$( [[ $id == none ]] && echo "none: the tree as committed (a control)" || bug_of "$id")" '
      $1 == id && $2 == store && (length_ == "" || $9 == length_) {
        runs++; if ($4 == "caught") caught++
        seeds = seeds (runs > 1 ? ", " : "") $3
        cell = ($4 == "caught" || $4 == "control'"'"'s only" ? $5 : $4)
        if ($10 != "") cell = cell " (in " $9 "; " $10 ")"
        after = after (runs > 1 ? ", " : "") cell
        beyond = beyond (runs > 1 ? ", " : "") ($8 == "" ? "-" : $8)
        if ($6 != "") rules = rules (rules != "" ? "; " : "") $6
        if ($7 != "") note = $7
      }
      END {
        gsub(/\|/, "\\|", note)
        if (length_ != "" && length_ != duration) store = store ", " length_ " runs"
        printf "| `%s` | %s | %s | %d of %d | %s | %s | %s | %s%s |\n", id, store, seeds, caught, runs, after, beyond,
          (rules == "" ? "none" : rules), bug, (note == "" ? "" : " (" note ")")
      }' "$sorted"
  done < <(awk -F'\t' '!seen[$1 "\t" $2 "\t" ($1 == "none" ? $9 : "")]++ { print $1 "\t" $2 "\t" ($1 == "none" ? $9 : "") }' "$sorted")
  echo
  echo "## Missed or not run"
  echo
  if awk -F'\t' '$1 != "none" && $4 != "caught"' "$sorted" | grep -q .; then
    awk -F'\t' '$1 != "none" && $4 != "caught" { printf "* `%s` on %s, seed %s: %s%s%s\n", $1, $2, $3, $4,
      ($10 == "" ? "" : " in " $9 " (" $10 ")"), ($7 == "" ? "" : " (" $7 ")") }' "$sorted"
  else
    echo "none: every run caught its mutant."
  fi
  if [[ -n "$longer" ]]; then
    echo
    echo "## Caught only when run again for $longer"
    echo
    if awk -F'\t' '$1 != "none" && $4 == "caught" && $10 != ""' "$sorted" | grep -q .; then
      awk -F'\t' '$1 != "none" && $4 == "caught" && $10 != "" { printf "* `%s` on %s, seed %s: %s, then caught after %s s in %s\n", $1, $2, $3, $10, $5, $9 }' "$sorted"
    else
      echo "none."
    fi
  fi
  echo
  echo "## How it was run"
  echo
  echo "* per mutant: its patch applied to a scratch copy of the files it touches, the patched \`.java\` files"
  echo "  compiled with \`javac --release 17\` against \`lab/target/lab.jar\` into a scratch classes folder and its"
  echo "  patched resources (Lua scripts, SQL) copied there, checked to shadow the jar's, then per store and seed:"
  echo "  \`java -cp SCRATCH:lab/target/lab.jar dev.idemlab.lab.cli.LabMain nemesis --store S --seed N --duration $duration\`"
  echo "  (and the mutant's extra arguments, if the manifest gives any); the child JVMs the nemesis starts"
  echo "  inherit that class path"
  if ((jobs_wanted == 1)); then
    echo "* one nemesis at a time; a run takes the duration, the wait for the last answers, and the same"
  else
    echo "* $jobs_wanted nemesis runs at a time (each in its own JVM with servers of its own), every control of $duration before the"
    echo "  first mutant, a run over HTTP (the filters, the sample) alone; a run takes the duration, the wait for the last answers, and the same"
  fi
  echo "  schedule again with the provider deduplicating on the key when the first pass had explained duplicates"
  echo "* rerun one: \`git apply mutants/ID.patch\`, build the jar, then"
  echo "  \`java -jar lab/target/lab.jar nemesis --store S --seed N --duration $duration\`; or"
  echo "  \`bash scripts/mutants.sh --only ID --stores S --seed-list N --duration $duration\`"
  [[ -z "$longer" ]] || echo "* a run missed in $duration: the same command with \`--duration $longer\`"
} > "$page_tmp"
mv "$page_tmp" "$out"
page_tmp=""
echo "wrote $out"
exit "$status"
