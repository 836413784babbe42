# Sourced by the scripts of this folder, after their `cd` to the repository:
#   source scripts/usage.sh && only_options [OPTION...] -- "$@"
# -h or --help prints the calling script's header comment (what it does and
# how to call it) and exits 0; any argument not among the OPTIONs gets one
# line and exit 2, before anything is installed or built. Scripts that take
# arguments of their own (files, targets) call `usage "$@"` alone.

# For -h or --help: the script's header comment, then exit 0.
usage() {
  case "${1:-}" in
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "scripts/${0##*/}"
      exit 0
      ;;
  esac
}

# `usage`, then refuses any argument that is not one of the OPTIONs before `--`.
only_options() {
  local allowed=() arg
  while [[ $1 != -- ]]; do
    allowed+=("$1")
    shift
  done
  shift
  usage "$@"
  for arg in "$@"; do
    if [[ " ${allowed[*]} " != *" $arg "* ]]; then
      printf '%s: unknown argument %q (--help says what it takes)\n' "${0##*/}" "$arg" >&2
      exit 2
    fi
  done
}
