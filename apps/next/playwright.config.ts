import { frameworkConfig } from '@parlance/framework-e2e';

export default frameworkConfig({ command: (port) => `next start -H 127.0.0.1 -p ${port}` });
