// Every @AuraEnabled method of BuyerIntelRefreshController as a jest.fn, the way sfdx-lwc-jest documents
// mocking Apex (virtual modules: they exist only on the platform). jest.doMock, because babel-jest hoists
// jest.mock above the list. Run before each test file (setupFilesAfterEnv), so each file has its own
// mocks; a test sets what a method answers with mockResolvedValue / mockRejectedValue.
const METHODS = [
  'getMatch',
  'refresh',
  'jobStatus',
  'confirmCandidate',
  'rejectAccount',
  'clearRejection',
  'researchAccount',
  'getHistory',
  'undoLastChange',
  'undoStatus',
];

for (const method of METHODS)
  jest.doMock(`@salesforce/apex/BuyerIntelRefreshController.${method}`, () => ({ default: jest.fn() }), {
    virtual: true,
  });
