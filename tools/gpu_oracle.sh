#!/usr/bin/env bash
# Run `xlate verify --backend native` over the whole shared corpus on a machine with an
# NVIDIA GPU (its driver loads every NV/ARB dialect through glProgramStringARB /
# glLoadProgramNV), write one JSON report and print a summary per dialect folder: programs
# run / passed (identical) / explained (the replay shows every difference permitted; by
# verdict) / unexplained (by verdict) / unsupported (by reason).  Differences are explained
# with probes of the original text (xlate/verify/native_probe.py); what those cannot probe
# yet (an !!FP1.0 text: one colour output; an !!VP2.0 text with control flow; the n-th pass
# of a repeated instruction) stays unexplained ("not localized"), never passed.  Geometry and
# state programs are loaded (a refusal is reported) but not run.  docs/native-verify.md has
# the figures of a run on an H200.
#
#   tools/gpu_oracle.sh [CORPUS (default ../shared/corpus)] [OUT (default gpu-oracle)] [LANES]
#
# Environment: JOBS (worker processes, default: the number of cores), TIMEOUT (seconds per
# program, default 120).  Each report is appended to OUT/native.jsonl as it finishes, so a run
# cut short still leaves its results: `tools/native_oracle.py --from-jsonl OUT/native.jsonl
# FOLDER...` summarizes them.  The NV dialect folders go first (a plain ARB folder also runs
# on llvmpipe).
#
# Needs EGL with an OpenGL compatibility profile (NVIDIA: libEGL_nvidia; headless works:
# EGL_PLATFORM=surfaceless or device).  Programs the driver refuses are reported
# `unsupported: driver refuses the program: <its message>`.  On Mesa llvmpipe only the plain
# ARB folders run (tools/native_oracle.py gives the same summary there).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
CORPUS="${1:-$HERE/../../shared/corpus}"
OUT="${2:-gpu-oracle}"
LANES="${3:-1024}"
export EGL_PLATFORM="${EGL_PLATFORM:-surfaceless}"
export PYTHONPATH="$HERE/..${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$OUT"
FOLDERS=()
ARB=()
for d in "$CORPUS"/collected/* "$CORPUS"/cg/*; do
    [ -d "$d" ] || continue
    case "$(basename "$d")" in
        tgsi|glslf|glslg|glslv) continue ;;     # not assembly programs of a GL interface
        arbfp|arbvp|arbfp1|arbvp1) ARB+=("$d") ;;
        *) FOLDERS+=("$d") ;;
    esac
done
FOLDERS+=("${ARB[@]}")
if [ "${#FOLDERS[@]}" -eq 0 ]; then
    echo "gpu_oracle: no corpus folders under $CORPUS" >&2
    exit 2
fi
rm -f "$OUT/native.jsonl"
python3 "$HERE/native_oracle.py" --quiet --lanes "$LANES" --jobs "${JOBS:-$(nproc)}" \
    --timeout "${TIMEOUT:-120}" --progress "$OUT/native.jsonl" --json "$OUT/native.json" \
    "${FOLDERS[@]}" \
    | tee "$OUT/summary.txt"
echo "reports: $OUT/native.json ($OUT/native.jsonl line by line), summary: $OUT/summary.txt"
