// Companies v3 (/crm/v3/objects/companies). HubSpot requires at least one of `domain` or `name` to create
// a company ("Using object APIs" guide, required properties table).
import { validationError } from '../errors.ts';
import type { RouteModule } from '../operation.ts';
import { registerBatchArchive } from './batch-archive.ts';
import { registerObjectRoutes } from './objects.ts';

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

export const registerCompanyRoutes: RouteModule = (define, ctx) => {
  registerObjectRoutes(define, ctx, 'companies', {
    checkCreate: (properties) =>
      present(properties.domain) || present(properties.name)
        ? undefined
        : validationError('At least one of the properties domain or name is required to create a company'),
  });
  registerBatchArchive(define, ctx, 'companies');
};
