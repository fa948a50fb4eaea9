#!/usr/bin/env python3
"""Records what Salt's core grains make of each os-release file in
packages/core/test/golden/grains/os-release/, as on a host without the lsb_release Python
module (Debian 12's default), plus server_id for a few minion ids and the systemd grain of this host's `systemctl --version`. Run with the Salt oracle's
Python (see ../shared/tools/salt-oracle):

    ORACLE/venv/bin/python scripts/salt-grains-golden.py

It writes packages/core/test/golden/grains/salt-grains.json; the test never writes it.
"""
import json
import os
import platform
import subprocess
import sys

import distro
import salt.grains.core as core

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "packages", "core", "test", "golden", "grains")
folder = os.path.join(here, "os-release")
out = {"os_release": {}, "server_id": {}}
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    dist = distro.LinuxDistribution(include_lsb=False, include_uname=False, include_oslevel=False, os_release_file=path, distro_release_file="/nonexistent")
    core._freedesktop_os_release = lambda path=path: platform._parse_os_release(open(path, encoding="utf-8"))  # what Python reads from /etc/os-release
    core._linux_lsb_distrib_data = lambda: ({}, True)
    core._linux_distribution = lambda dist=dist: (dist.id(), dist.version(best=True), dist.codename())
    grains = core._linux_distribution_data()
    if grains.get("osrelease"):
        grains.update(core._osrelease_data(grains["os"], grains["osfullname"], grains["osrelease"]))
    out["os_release"][name] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(grains.items())}
for minion_id in ["anchor", "web1", "db1.example.com", ""]:
    core.__opts__ = {"id": minion_id}
    out["server_id"][minion_id] = core.get_server_id()["server_id"]
# the systemd grain from `systemctl --version` as this host prints it
systemctl = subprocess.run(["systemctl", "--version"], capture_output=True, text=True, check=True).stdout
core.__salt__ = {"cmd.run_all": lambda cmd: {"retcode": 0, "stdout": systemctl}}
out["systemd"] = {"systemctl_version": systemctl, "grain": core._systemd()}
with open(os.path.join(here, "salt-grains.json"), "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
print(json.dumps(out, indent=1), file=sys.stderr)
