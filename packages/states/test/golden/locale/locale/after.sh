# what Salt left: /etc/locale.gen, /etc/default/locale, the locales built and the .bak copies
cat "$1/up/locale.gen"
echo '--'
cat "$1/up/default/locale" 2>/dev/null || echo 'locale unchanged'
echo '--'
ls "$1/lu" | sort
echo '--'
# Salt's file.replace keeps the file as it was before each edit beside it
(cd "$1/up" && find . -name '*.bak' | sort)
cat "$1/up/locale.gen.bak" "$1/up/default/locale.bak"
