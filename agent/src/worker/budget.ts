/** A count of tasks left to run, shared by claim slots; see {@link WorkerLoopOptions.taskBudget}. */
export type TaskBudget = { take(): boolean; giveBack(): void };

/** A {@link TaskBudget} of `tasks` tasks. */
export function createTaskBudget(tasks: number): TaskBudget {
  let left = tasks;
  return {
    take() {
      if (left <= 0) return false;
      left--;
      return true;
    },
    giveBack() {
      left++;
    },
  };
}
