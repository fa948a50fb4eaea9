# what Salt left: /etc/locale.gen, /etc/default/locale and the locales built
cat "$1/up/locale.gen"
echo '--'
cat "$1/up/default/locale" 2>/dev/null || echo 'locale unchanged'
echo '--'
ls "$1/lu" | sort
