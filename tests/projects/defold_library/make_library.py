"""Writes .internal/lib/twicelib-main.zip, a Defold library project as GitHub's archive of it
looks (one top folder, deflated files), for tests/gameplay.rs' a_defold_library_runs."""
import os
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
files = {
    "twicelib-main/game.project": "[project]\ntitle = twicelib\n\n[library]\ninclude_dirs = twicelib\n",
    "twicelib-main/twicelib/twice.lua": "return function(x) return 2 * x end\n",
    "twicelib-main/twicelib/spin.script": 'go.property("turns", 1)\n\nfunction init(self)\n  msg.post("/main", "spun", { turns = self.turns })\nend\n',
    "twicelib-main/example/notes.txt": "Outside include_dirs: not mounted.\n",
}
out = os.path.join(here, ".internal", "lib", "twicelib-main.zip")
os.makedirs(os.path.dirname(out), exist_ok=True)
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(zipfile.ZipInfo("twicelib-main/", date_time=(2026, 1, 1, 0, 0, 0)), "")
    for name, text in files.items():
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, text)
