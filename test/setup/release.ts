// Before every test file of both projects (vitest's setupFiles run per file even where files share a
// process): after the file, what its tests created on the database server or on disk is removed.
// Registered first, so it runs after the file's own afterAll hooks.
import { afterAll } from 'vitest';
import { releaseTestFile } from '../helpers/release.ts';

afterAll(releaseTestFile);
