/**
 * The files of a build system (issue 40, item 1: source before everything else). A C or C++ project keeps one or
 * several: CMake (`CMakeLists.txt`, `*.cmake`), Bazel (`BUILD`, `*.bazel`, `*.bzl`, `WORKSPACE`), Meson
 * (`meson.build`, `meson_options.txt`), Doxygen (`Doxyfile`), MSBuild and Visual Studio (`*.vcxproj`, `*.sln`),
 * qmake (`*.pro`, `*.pri`), GN (`*.gn`, `*.gni`), SCons (`SConstruct`, `SConscript`), make fragments (`*.mk`), rake,
 * autotools' auxiliary scripts (`config.sub`, `install-sh`, `depcomp`). The path classes leave most of them as `source` (no extension of a known
 * kind), yet each lists the project's source files and options by name: a prose issue's words match them as well as
 * the code. They rank as configuration, unless the issue's title names that build system ("Bazel build fails to
 * find …", "CMake: install target …"): then the fix is in them.
 */
const SYSTEMS: [system: string, test: RegExp][] = [
  ['cmake', /^(?:cmakelists\.txt|.+\.cmake(?:\.in)?|cmakepresets\.json)$/i],
  ['bazel', /^(?:build|build\.bazel|workspace|workspace\.bazel|workspace\.bzlmod|module\.bazel|.+\.bzl|.+\.bazel|\.bazelrc|\.bazelversion)$/i],
  ['meson', /^(?:meson\.build|meson_options\.txt|meson\.options)$/i],
  ['doxygen', /^(?:doxyfile(?:\.in)?|.+\.doxyfile|.+\.dox)$/i],
  ['msbuild', /\.(?:vcxproj(?:\.filters)?|vcproj|sln|props|targets)$/i],
  ['qmake', /\.(?:pro|pri)$/i],
  ['gn', /^(?:.+\.gni?|\.gn)$/i],
  ['scons', /^(?:sconstruct|sconscript)$/i],
  ['make', /^(?:.+\.mk|gnumakefile|makefile\.[a-z0-9]+)$/i],
  ['premake', /^premake\d*\.lua$/i],
  ['xmake', /^xmake\.lua$/i],
  ['rake', /^rakefile$/i],
  // Autoconf's and automake's auxiliary scripts, copied into a project by `autoreconf --install` (shell without an extension).
  ['autotools', /^(?:config\.(?:sub|guess|status|rpath)|install-sh|depcomp|compile|missing|ltmain\.sh|ar-lib|test-driver|mkinstalldirs|ylwrap|configure|aclocal\.m4|autogen\.sh|libtool)$/i],
];

/** The build system a path belongs to (`cmake`, `bazel`, …), or undefined for any other file. */
export function buildSystemOf(rel: string): string | undefined {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  for (const [system, test] of SYSTEMS) if (test.test(base)) return system;
  return undefined;
}

/** Names of each build system an issue's title may use for it. */
const SPOKEN: Record<string, string[]> = {
  cmake: ['cmake', 'cmakelists'],
  bazel: ['bazel', 'bzlmod'],
  meson: ['meson'],
  doxygen: ['doxygen', 'doxyfile'],
  // Not `msvc`: an issue titled by the compiler ("MSVC warning C4244 in …") is about the code it compiles.
  msbuild: ['msbuild', 'vcxproj'],
  qmake: ['qmake'],
  gn: [],
  scons: ['scons', 'sconstruct'],
  make: ['makefile', 'gnumake'],
  premake: ['premake'],
  xmake: ['xmake'],
  rake: ['rake', 'rakefile'],
  autotools: ['autotools', 'autoconf', 'automake', 'autoreconf', 'libtool'],
};

/** The build systems a task names: a one-line task anywhere, an issue (several lines) in its title. */
export function buildSystemsNamed(task: string): Set<string> {
  const lines = task.split(/\r?\n/).filter((l) => l.trim() !== '');
  // Whole words of the text as written, lower-cased (`CMake`, `CMakeLists.txt`): a camel-case split would cut them.
  const words = new Set((lines.length > 1 ? lines[0]! : task).toLowerCase().split(/[^a-z0-9]+/));
  const out = new Set<string>();
  for (const [system, names] of Object.entries(SPOKEN)) if (names.some((n) => words.has(n))) out.add(system);
  return out;
}
