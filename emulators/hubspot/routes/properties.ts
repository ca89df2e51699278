// Properties v3 (/crm/v3/properties/{objectType}): property definitions and property groups. Creating a
// name that exists answers 409; the HubSpot-defined properties a portal starts with are seeded.
import { notFound } from '../errors.ts';
import type { RouteModule } from '../operation.ts';
import { boolParam, objectBody, objectTypeParam } from '../request.ts';

const BASE = '/crm/v3/properties/:objectType';

export const registerPropertyRoutes: RouteModule = (define, ctx) => {
  const { store } = ctx;

  // Groups first: `/groups` would otherwise be taken for a property name.
  define('get', `${BASE}/groups`, 'crm.properties.groupsApi.getAll', (req) => {
    const type = objectTypeParam(String(req.params.objectType));
    return { results: store.groups(type) };
  });

  define('post', `${BASE}/groups`, 'crm.properties.groupsApi.create', (req, res) => {
    const type = objectTypeParam(String(req.params.objectType));
    const group = store.createGroup(type, objectBody(req));
    res.status(201);
    return group;
  });

  define('get', `${BASE}/groups/:groupName`, 'crm.properties.groupsApi.getByName', (req) => {
    const type = objectTypeParam(String(req.params.objectType));
    const name = String(req.params.groupName);
    const group = store.group(type, name);
    if (!group) throw notFound(`Unable to find property group ${name} for object type ${type}`);
    return group;
  });

  define('get', BASE, 'crm.properties.coreApi.getAll', (req) => {
    const type = objectTypeParam(String(req.params.objectType));
    return { results: boolParam(req.query, 'archived') ? [] : store.properties(type) };
  });

  define('post', BASE, 'crm.properties.coreApi.create', (req, res) => {
    const type = objectTypeParam(String(req.params.objectType));
    const property = store.createProperty(type, objectBody(req));
    res.status(201);
    return property;
  });

  define('get', `${BASE}/:propertyName`, 'crm.properties.coreApi.getByName', (req) => {
    const type = objectTypeParam(String(req.params.objectType));
    const name = String(req.params.propertyName);
    const property = store.property(type, name);
    if (!property || property.archived !== boolParam(req.query, 'archived')) {
      throw notFound(`Unable to find property ${name} for object type ${type}`);
    }
    return property;
  });
};
