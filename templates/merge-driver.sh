f() {
  for z in "$(command -v zo)" {zo}; do [ -x "$z" ] && exec "$z" merge-driver "$@"; done;
  case "$4" in *STATE.md)
    o=$(grep -m1 '^timestamp:' "$2"); t=$(grep -m1 '^timestamp:' "$3");
    if [ "$(expr "x$t" \> "x$o")" = 1 ]; then cat "$3" > "$2"; fi;
    echo "zo merge driver: zo not found; kept the newer $4 whole" >&2; exit 0;;
  esac;
  n=$(($(wc -c < "$1")));
  if head -c "$n" "$3" | cmp -s - "$1"; then
    tail -c +$((n + 1)) "$3" >> "$2";
  elif head -c "$n" "$2" | cmp -s - "$1"; then
    tail -c +$((n + 1)) "$2" > "$2.zo-tail" && cat "$3" > "$2" && cat "$2.zo-tail" >> "$2"; rm -f "$2.zo-tail";
  else
    echo "zo merge driver: zo not found; $4 needs a hand merge: keep every entry of both sides" >&2;
    git merge-file -L ours -L base -L theirs "$2" "$1" "$3"; return;
  fi;
  echo "zo merge driver: zo not found; added the other side's new entries of $4 after this side's; run zo verify" >&2;
};
f %O %A %B %P
