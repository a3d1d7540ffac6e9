import { frameworkConfig } from '@parlance/framework-e2e';

export default frameworkConfig({ command: () => 'react-router-serve ./build/server/index.js' });
