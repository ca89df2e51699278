// ESLint lints the Salesforce quick action's LWC only, with Salesforce's own rules for LWC
// (@salesforce/eslint-config-lwc: the platform's restrictions and LWC best practices); Biome lints
// everything else, these files too.
import lwcConfig from '@salesforce/eslint-config-lwc';

const LWC = 'connectors/salesforce/force-app/**/lwc/**/*.js';

export default [...lwcConfig.configs.recommended.map((config) => ({ ...config, files: [LWC] }))];
