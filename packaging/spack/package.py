# Spack package recipe for strata (docs/install.md).
#
# Use it from a repository of your own:
#   spack repo create ~/spack-repo && mkdir -p ~/spack-repo/packages/strata
#   cp packaging/spack/package.py ~/spack-repo/packages/strata/ && spack repo add ~/spack-repo
#   spack install strata            # or, from this checkout: spack dev-build strata@main
# Spack builds ncurses, Lua 5.4, GLPK and libyaml into its own prefixes and strata with
# DEPS_PREFIX pointing at them (include paths, library paths, rpaths), so nothing needs root.

import os

from spack.package import *


class Strata(MakefilePackage):
    """Terminal planner of hybrid parallelism (DP/TP/PP/CP/EP, ZeRO, recomputation,
    pipeline schedules) for LLM training, with a closed-form memory and step-time model."""

    # Where `spack install` clones strata from: STRATA_GIT_URL (a URL, or file:///path of a
    # checkout); `spack dev-build` inside a checkout fetches nothing.
    git = os.environ.get("STRATA_GIT_URL", "file:///path/to/strata")
    homepage = git

    version("main", branch="main")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("ncurses+termlib")
    depends_on("lua@5.4")
    depends_on("glpk")
    depends_on("libyaml")

    def _make_args(self, spec, prefix):
        deps = " ".join(spec[name].prefix for name in ("ncurses", "lua", "glpk", "libyaml"))
        return [
            f"PREFIX={prefix}",
            f"DEPS_PREFIX={deps}",
            "STRATA_NO_DEPS=1",  # the dependencies are Spack's, not the system's
        ]

    def build(self, spec, prefix):
        make(*self._make_args(spec, prefix))

    def install(self, spec, prefix):
        make("install", *self._make_args(spec, prefix))

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed(self):
        Executable(self.prefix.bin.strata)("presets")
