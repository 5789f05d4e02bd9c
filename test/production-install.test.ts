import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { pushScriptOptions, serverOptions } from '../scripts/bundles.mjs';
import { cliOptions } from '../scripts/cli-bundle.mjs';
import { FONT_FAMILIES, fontFilesOf, VENDORED_FONTS } from '../src/pdf/fonts.ts';
import { PROJECT } from './helpers/process.ts';

// A production install (`npm ci --omit=dev`) has no development dependency: no tsx, no typescript, no
// gray-matter. It builds dist/ (package.json's prepare, and again on every `npm start`) and runs the
// built files with plain node, so everything the build and the built files need must come with
// `dependencies`. .ci/run proves it end to end on a clean clone; these tests say which rule broke.
// They never write dist/ (test/build.test.ts builds it and runs it meanwhile).

interface PackageJson {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const pkg = JSON.parse(fs.readFileSync(join(PROJECT, 'package.json'), 'utf8')) as PackageJson;
const lock = JSON.parse(fs.readFileSync(join(PROJECT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; version?: string }> };

/** The folder of node_modules a bundled file comes from (`node_modules/a/node_modules/@b/c`), or null for the project's own files. */
const packageFolder = (file: string) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? null;

/** Whether `npm ci --omit=dev` leaves out the package installed at `folder` (the lockfile marks it dev). */
const devOnly = (folder: string) => {
  const entry = lock.packages[folder];
  assert.ok(entry, `${folder} is in package-lock.json`);
  return entry.dev === true;
};

describe('a production install (npm ci --omit=dev)', () => {
  test('npm ci builds dist/ (prepare), npm start builds before it starts, the command line is a bin, and npm run cli needs no tsx', () => {
    // Skipped where only package.json and the lockfile are there yet (the first layer of examples/deploy/Containerfile).
    assert.equal(pkg.scripts.prepare, '[ ! -f scripts/build.mjs ] || node scripts/build.mjs');
    assert.match(pkg.scripts.start, /^node scripts\/build\.mjs && exec node( --\S+)* dist\/main\.js$/);
    assert.equal(pkg.bin['help-content'], 'dist/cli.js');
    assert.equal(cliOptions.outfile, pkg.bin['help-content']);
    assert.match(cliOptions.banner.js, /^#!\/usr\/bin\/env node\n/, 'dist/cli.js runs as a program');
    assert.equal(pkg.scripts.cli, 'node scripts/cli.mjs');
    // The scripts a production install runs start plain node: tsx (development only) is for dev, test, bench.
    for (const name of ['build', 'prepare', 'start', 'cli']) assert.doesNotMatch(pkg.scripts[name], /\btsx\b|\btsc\b/, name);
  });

  test('the build script needs only dependencies: esbuild is one', () => {
    assert.ok(pkg.dependencies.esbuild, 'esbuild is in dependencies (prepare and npm start build)');
    assert.equal(pkg.devDependencies.esbuild, undefined);
    assert.equal(devOnly('node_modules/esbuild'), false);
    for (const file of ['build.mjs', 'bundles.mjs', 'cli-bundle.mjs', 'cli.mjs']) {
      const text = fs.readFileSync(join(PROJECT, 'scripts', file), 'utf8');
      for (const [, spec] of text.matchAll(/^import .* from '([^'.][^']*)';$/gm)) {
        if (spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        assert.ok(pkg.dependencies[name], `scripts/${file} imports ${spec}, which is not in dependencies`);
      }
    }
  });

  test('the server, its index worker, the push script and the command line bundle no development dependency, and import none', async () => {
    const bundled = new Map<string, string>();
    /** For each bundled package folder, the package folders (or null: the project) whose files import one of its files. */
    const importers = new Map<string, Set<string | null>>();
    const external = new Set<string>();
    for (const options of [serverOptions, pushScriptOptions, cliOptions]) {
      const result = await build({ ...(options as BuildOptions), write: false, metafile: true, logLevel: 'silent' });
      const meta = result.metafile as Metafile;
      for (const [input, { imports }] of Object.entries(meta.inputs)) {
        const folder = packageFolder(input);
        if (folder !== null) bundled.set(folder, input);
        for (const i of imports) {
          const target = i.external ? null : packageFolder(i.path);
          if (target !== null && target !== folder) importers.set(target, (importers.get(target) ?? new Set()).add(folder));
        }
      }
      for (const output of Object.values(meta.outputs)) for (const i of output.imports) if (i.external) external.add(i.path);
    }
    assert.ok(bundled.has('node_modules/koa'), 'koa is bundled (the analysis sees node_modules)');
    // A package only some development tool installs may still be bundled when the code that imports it
    // does without it: debug's optional peer supports-color (and what that one needs). A production
    // build leaves such a require() to fail at run time, inside the try that expects it to.
    const optionalPeer = (folder: string) => {
      const name = folder.slice(folder.lastIndexOf('node_modules/') + 'node_modules/'.length);
      return (importer: string | null) => {
        if (importer === null) return false;
        const entry = lock.packages[importer] as { peerDependenciesMeta?: Record<string, { optional?: boolean }> } | undefined;
        return entry?.peerDependenciesMeta?.[name]?.optional === true;
      };
    };
    const allowed = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const folder of bundled.keys()) {
        if (allowed.has(folder) || !devOnly(folder)) continue;
        const from = [...(importers.get(folder) ?? [])];
        if (from.length > 0 && from.every((f) => optionalPeer(folder)(f) || (f !== null && allowed.has(f)))) grew = allowed.add(folder).size > 0;
      }
    }
    const dev = [...bundled].filter(([folder]) => devOnly(folder) && !allowed.has(folder)).map(([, input]) => input);
    assert.deepEqual(dev, [], 'files of development dependencies in the build');
    for (const spec of external) {
      if (isBuiltin(spec)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      assert.ok(pkg.dependencies[name], `the build imports ${spec} at run time, which is not in dependencies`);
    }
  });

  test('the packages the server reads files of at run time (Swagger UI, markdown-it) are dependencies', () => {
    const names = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          const text = fs.readFileSync(path, 'utf8');
          // require.resolve('<package>/…'), packageFile('<package>', …) (src/portal/assets.ts). The font
          // packages (src/pdf/fonts.ts) are read only when installed: the next test.
          for (const m of text.matchAll(/require\.resolve\('((?:@[^/']+\/)?[^/']+)|packageFile\('([^']+)'/g)) {
            names.add(`${m[1] ?? m[2]}\t${relative(PROJECT, path)}`);
          }
        }
      }
    };
    walk(join(PROJECT, 'src'));
    assert.ok(names.size >= 2, `found the packages read by path: ${[...names].join(', ')}`);
    for (const entry of names) {
      const [name, file] = entry.split('\t');
      assert.ok(pkg.dependencies[name], `${file} reads files of ${name} at run time, which is not in dependencies`);
    }
  });

  test('the files served from vendor/ are those of the locked development dependencies, byte for byte', () => {
    const locked = (name: string) => lock.packages[`node_modules/${name}`]?.version;
    const same = (vendored: string, installed: string) =>
      assert.ok(fs.readFileSync(join(PROJECT, vendored)).equals(fs.readFileSync(join(PROJECT, 'node_modules', installed))), `${vendored} differs from node_modules/${installed}: copy it again (vendor/*/README.md)`);
    // The font packages are read only when installed (the CJK ones in development); the required families' files are vendored, with their licences.
    const fontsReadme = fs.readFileSync(join(VENDORED_FONTS, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    // docs/portal.md#fonts fetches the optional families of the versions locked here.
    const recipe = fs.readFileSync(join(PROJECT, 'docs', 'portal.md'), 'utf8');
    for (const f of FONT_FAMILIES) {
      assert.ok(pkg.devDependencies[f.pkg] && !pkg.dependencies[f.pkg], `${f.pkg} is a development dependency`);
      if (f.required) {
        for (const { file, inPackage } of fontFilesOf(f)) same(join('vendor', 'fonts', file), join(f.pkg, inPackage));
        assert.ok(fs.existsSync(join(VENDORED_FONTS, `OFL-${f.id}.txt`)), `the licence of ${f.family}`);
        assert.ok(fontsReadme.includes(`\`${f.pkg}\` ${locked(f.pkg)}`), `vendor/fonts/README.md names ${f.pkg} ${locked(f.pkg)}`);
      } else {
        const fetched = recipe.includes(`"@expo-google-fonts/noto-sans-\${f%:*}@${locked(f.pkg)}"`) && recipe.includes(`noto-sans-\${f%:*}-${locked(f.pkg)}.tgz`);
        assert.ok(fetched, `docs/portal.md#fonts fetches and unpacks ${f.pkg}@${locked(f.pkg)}`);
      }
    }
    // pdfmake: the portal serves its browser build and Courier's metrics; the package's 39 MB stay out of production.
    assert.ok(pkg.devDependencies.pdfmake && !pkg.dependencies.pdfmake, 'pdfmake is a development dependency');
    same('vendor/pdfmake/pdfmake.min.js', 'pdfmake/build/pdfmake.min.js');
    same('vendor/pdfmake/Courier.js', 'pdfmake/build/standard-fonts/Courier.js');
    same('vendor/pdfmake/LICENSE', 'pdfmake/LICENSE');
    assert.ok(fs.readFileSync(join(PROJECT, 'vendor/pdfmake/README.md'), 'utf8').includes(`(https://pdfmake.org) ${locked('pdfmake')},`), 'vendor/pdfmake/README.md names the version');
  });
});
