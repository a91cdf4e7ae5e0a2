/** Placeholder: the store work replaces this with the Postgres reachability check. */
export default function setup(): void {}
