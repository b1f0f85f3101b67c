import { NavkernelError } from './contracts/errors.js';

/** A feature needs a package that is an optional peer dependency of navkernel and is not installed. */
export class MissingPackageError extends NavkernelError {
  readonly package: string;
  constructor(pkg: string, purpose: string) {
    super('MISSING_PACKAGE', `${purpose} needs the package ${pkg}, which is not installed: npm install ${pkg}`);
    this.name = 'MissingPackageError';
    this.package = pkg;
  }
}

/**
 * Checks, without loading it, that an optional peer dependency can be imported from navkernel; throws a
 * MissingPackageError naming the package to install otherwise. `specifier` is what navkernel imports.
 */
export function requireOptionalPackage(pkg: string, purpose: string, specifier: string = pkg): void {
  try {
    import.meta.resolve(specifier);
  } catch {
    throw new MissingPackageError(pkg, purpose);
  }
}
