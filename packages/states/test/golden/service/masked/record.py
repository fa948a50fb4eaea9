"""Records Salt 3007's service.masked/unmasked results without a running systemd.

usage: venv/bin/python record.py CASE_DIR   (the oracle's python; regenerate.sh runs it)

Salt's own state functions (salt/states/service.py) run over Salt's own systemd execution
functions (salt/modules/systemd_service.py masked/mask/unmask_), which drive the real systemctl
against a temp root (`systemctl --root`, which works offline). Only the unit-file-change check
(a daemon-reload, which needs a running systemd) is turned off. Writes salt-low.json,
salt-run.json and salt-run-test.json in the golden layout, paths under ROOT.
"""
import json, os, shutil, sys
import salt.config, salt.loader
import salt.modules.cmdmod as cmdmod
import salt.modules.systemd_service as sd
import salt.states.service as st

case = sys.argv[1]
ROOT = "/tmp/brine-golden/service-masked"
chunks = [
    ("mask", "masked", "brine-demo", {}),
    ("mask-again", "masked", "brine-demo", {}),
    ("mask-runtime", "masked", "brine-demo.socket", {"runtime": True}),
    ("unmask", "unmasked", "brine-demo", {}),
    ("unmask-again", "unmasked", "brine-demo", {}),
    ("unmask-runtime", "unmasked", "brine-demo.socket", {"runtime": True}),
    ("unmask-never-masked", "unmasked", "brine-other.timer", {}),
]
opts = salt.config.minion_config(None)
cmdmod.__opts__ = opts
cmdmod.__salt__ = {}
cmdmod.__grains__ = {}
cmdmod.__context__ = {}
sd.__salt__ = {"cmd.run_all": cmdmod.run_all, "config.get": lambda k, d=None: d}
sd.__context__ = {}
sd._check_for_unit_changes = lambda name: None
st.__salt__ = {
    "service.masked": lambda name, runtime=False: sd.masked(name, runtime, root=ROOT),
    "service.mask": lambda name, runtime=False: sd.mask(name, runtime, root=ROOT),
    "service.unmask": lambda name, runtime=False: sd.unmask_(name, runtime, root=ROOT),
}
low = []
for i, (sid, fun, name, kw) in enumerate(chunks):
    low.append(dict(state="service", fun=fun, name=name, __id__=sid, __sls__="init", __env__="base", order=10000 + i, **kw))
json.dump(low, open(os.path.join(case, "salt-low.json"), "w"), indent=2, sort_keys=True)
for test, out in ((False, "salt-run.json"), (True, "salt-run-test.json")):
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    st.__opts__ = {"test": test}
    res = {}
    for n, c in enumerate(low):
        kw = {k: v for k, v in c.items() if k in ("runtime",)}
        r = getattr(st, c["fun"])(c["name"], **kw)
        r["__id__"], r["__run_num__"], r["__sls__"] = c["__id__"], n, "init"
        res["service_|-%s_|-%s_|-%s" % (c["__id__"], c["name"], c["fun"])] = r
    json.dump(res, open(os.path.join(case, out), "w"), indent=2, sort_keys=True)
    open(os.path.join(case, out), "a").write("\n")
shutil.rmtree(ROOT, ignore_errors=True)
