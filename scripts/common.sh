# Sourced by the shell scripts in scripts/ (bootstrap.sh, check-kokkos.sh, gpu-check.sh,
# gpu-stress-resident.sh). Set first: script_name, the prefix of their messages, and help_lines, the
# lines of their header comment that --help prints (FIRST,LAST).

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() { sed -n "${help_lines}p" "$0" | sed 's/^# \{0,1\}//'; }
say() { echo "$script_name: $*"; }
fail() { echo "$script_name: $*" >&2; exit 2; }
die() { fail "error: $*"; }

# option_value ARGS...: the value of the option at the front of ARGS, given as --NAME VALUE or
# --NAME=VALUE, into value; taken: the words it used.
option_value() {
  case "$1" in
    --*=*) value=${1#*=}; taken=1 ;;
    *) value=${2:?$1 needs a value}; taken=2 ;;
  esac
}

# parse_build_options HANDLER ARGS...: the command line of the scripts that build Kokkos. --backend,
# --arch and --jobs (each --NAME VALUE or --NAME=VALUE) into backend, arch and jobs, --force sets
# force=1, -h/--help prints the help; any other argument goes to HANDLER ARGS..., which sets taken to
# the words it used, or leaves it 0: an unknown argument, an error.
parse_build_options() {
  local handler=$1
  shift
  while [ $# -gt 0 ]; do
    taken=1
    case "$1" in
      --backend|--backend=*) option_value "$@"; backend=$value ;;
      --arch|--arch=*) option_value "$@"; arch=$value ;;
      --jobs|--jobs=*) option_value "$@"; jobs=$value ;;
      --force) force=1 ;;
      -h|--help) usage; exit 0 ;;
      *) taken=0; "$handler" "$@" ;;
    esac
    [ "$taken" -gt 0 ] || { usage >&2; die "unknown argument '$1'"; }
    shift "$taken"
  done
}

# bundle_binary [HINT]: moves to the repository root; bin: the portasolve of the bundle in $bundle
# (scripts/bundle.sh), which must be there (else an error, with HINT).
bundle_binary() {
  cd "$repo_root"
  bin="$bundle/bin/portasolve"
  [ -x "$bin" ] || fail "no $bin${1:-}"
}
