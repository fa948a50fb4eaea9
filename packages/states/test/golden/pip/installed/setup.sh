# a virtualenv (no network: pip from ensurepip) and a local wheel dir with brinedemo 1.0/2.0 and brineother 0.1
set -e
python3 -m venv "$1/venv"
python3 - "$1/wheels" <<'PY'
import os, sys, zipfile
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
def wheel(name, version):
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": f"VERSION = '{version}'\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: brine-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist}/RECORD"] = "".join(f"{p},,\n" for p in files) + f"{dist}/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(out, f"{name}-{version}-py3-none-any.whl"), "w") as z:
        for p, text in files.items():
            z.writestr(zipfile.ZipInfo(p, (1980, 1, 1, 0, 0, 0)), text)
wheel("brinedemo", "1.0"); wheel("brinedemo", "2.0"); wheel("brineother", "0.1")
PY
printf 'brineother==0.1\n' > "$1/requirements.txt"
