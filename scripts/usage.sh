# Sourced by the scripts of this folder, after their `cd` to the repository
# (through a symbolic link too: each names its own file, links resolved):
#   script_path=$(readlink -f "${BASH_SOURCE[0]}") && cd "${script_path%/*}/.."
#   source scripts/usage.sh && only_options [OPTION...] -- "$@"
# -h or --help prints the calling script's header comment (what it does and
# how to call it) and exits 0; any argument not among the OPTIONs gets one
# line and exit 2, before anything is installed or built. Scripts that take
# arguments of their own (files, targets) call `usage "$@"` alone. `unpack`
# is for the two scripts that unpack a downloaded wheel.

# For -h or --help: the script's header comment, then exit 0.
usage() {
  case "${1:-}" in
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${script_path:-scripts/${0##*/}}"
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

# Unpacks the wheel (a zip) `$1` into folder `$2`, once: into a folder of its
# own, then named `$2` with a mark that it is whole. A run stopped half way
# (Ctrl-C) left a folder of cut files that every later run took as unpacked.
unpack() {
  [[ -f $2/.unpacked ]] && return
  rm -rf "$2" "$2.partial"
  python3 -m zipfile -e "$1" "$2.partial"
  touch "$2.partial/.unpacked"
  mv "$2.partial" "$2"
}
