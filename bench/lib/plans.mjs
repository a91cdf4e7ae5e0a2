// Plans the bench imports: independent tasks, a chain, and a layered DAG with random dependencies.
// They go straight into the database through whilly's own store (as `whilly plan import` does).
import { parsePlanObject } from "@whilly/core";
import { openPostgresStore } from "@whilly/worker-api";

/** A task id that sorts in creation order. @param {string} prefix @param {number} n */
const taskId = (prefix, n) => `${prefix}-${String(n).padStart(5, "0")}`;

/** @param {string} id @param {string[]} dependencies */
const task = (id, dependencies) => ({
  id,
  status: "pending",
  priority: "medium",
  description: `bench task ${id}`,
  dependencies,
});

/**
 * `count` tasks with no dependencies.
 * @param {string} planId @param {number} count
 */
export function independentTasks(planId, count) {
  const tasks = Array.from({ length: count }, (_, i) => task(taskId("T", i + 1), []));
  return { plan_id: planId, project: planId, tasks };
}

/**
 * A chain: task k depends on task k-1, so exactly one task is ready at a time.
 * @param {string} planId @param {number} length
 */
export function chain(planId, length) {
  const tasks = Array.from({ length }, (_, i) => task(taskId("C", i + 1), i === 0 ? [] : [taskId("C", i)]));
  return { plan_id: planId, project: planId, tasks };
}

/**
 * A layered DAG of `layers` × `width` tasks. Every task outside the first layer depends on one random
 * task of the layer before it (so the layers are real) and one random task of any earlier layer
 * (another one when that draw repeats the first). Deterministic for a given `seed`.
 * @param {string} planId @param {{ layers: number, width: number, seed?: number }} shape
 */
export function layeredDag(planId, { layers, width, seed = 42 }) {
  const random = seededRandom(seed);
  const pick = (n) => Math.floor(random() * n);
  const idOf = (layer, index) => taskId(`L${String(layer).padStart(2, "0")}`, index + 1);
  const tasks = [];
  for (let layer = 0; layer < layers; layer++) {
    for (let index = 0; index < width; index++) {
      const deps = [];
      if (layer > 0) {
        deps.push(idOf(layer - 1, pick(width)));
        const other = idOf(pick(layer), pick(width));
        if (other !== deps[0]) deps.push(other);
      }
      tasks.push(task(idOf(layer, index), deps));
    }
  }
  return { plan_id: planId, project: planId, tasks };
}

/** Imports plans into the bench database and creates empty ones, through whilly's store. */
export class PlanImporter {
  /** @param {string} databaseUrl */
  static async open(databaseUrl) {
    const url = new URL(databaseUrl);
    url.searchParams.set("application_name", "whilly-bench");
    return new PlanImporter(await openPostgresStore(url.toString(), { max: 2 }));
  }

  /** @param {import("@whilly/worker-api").Store} store */
  constructor(store) {
    this.store = store;
  }

  /**
   * Validates and imports a plan file object.
   * @returns {Promise<number>} how many tasks were inserted.
   */
  async importPlan(planFile) {
    const result = await this.store.importPlan(parsePlanObject(planFile, `bench:${planFile.plan_id}`));
    return result.inserted.length;
  }

  /** An empty plan, for claims that should park. @param {string} planId */
  async createEmptyPlan(planId) {
    await this.store.createPlan({ id: planId, name: planId });
  }

  async close() {
    await this.store.close();
  }
}

/**
 * A seeded linear congruential generator (constants from Numerical Recipes), so every run imports the
 * same DAG; plenty for picking dependencies. @param {number} seed
 */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
