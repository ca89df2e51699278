// The in-memory CRM is a test double: the product does not register it (no `--crm` message or `doctor`
// line names it). A test that runs it through the registry imports this module FIRST, before anything
// that reads the registry when it is loaded (the OpenAPI document's CRM enums, the config file's keys).
import { memory } from '../../connectors/memory/index.ts';
import { registerCrm } from '../../connectors/registry.ts';

registerCrm(memory);
