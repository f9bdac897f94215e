export function listUsers() { return []; }
