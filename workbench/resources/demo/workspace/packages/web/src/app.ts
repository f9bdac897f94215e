export const app = 'web';
