// Jest for the quick action's LWC only, with Salesforce's sfdx-lwc-jest (the LWC compiler and engine, and
// stubs of the lightning namespace); vitest runs every other test. Run from this folder, where
// sfdx-project.json is: `npm run test:lwc` at the repository's root.
import sfdxLwcJest from '@salesforce/sfdx-lwc-jest/config.js';

export default {
  ...sfdxLwcJest.jestConfig,
  // sfdx-lwc-jest has no stub of lightning/actions (the quick action's CloseActionScreenEvent).
  moduleNameMapper: { '^lightning/actions$': '<rootDir>/jest-mocks/lightning/actions' },
  // The controller's Apex methods, mocked once for every test file.
  setupFilesAfterEnv: ['<rootDir>/jest-mocks/apex-controller.js'],
  testMatch: ['<rootDir>/force-app/**/lwc/**/__tests__/**/*.test.js'],
};
