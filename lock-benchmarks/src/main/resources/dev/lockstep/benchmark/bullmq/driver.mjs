// Drives BullMQ for scenario Q of the Lockstep benchmark (see lock-benchmarks/README.md).
//   node driver.mjs fill <host> <port> <queue> <tasks> <groups>
//     adds <tasks> jobs of no work (their data the same shape as Lockstep's task payload) one by
//     one with Queue.add, 16 at a time (as the benchmark's 16 threads submit to Lockstep's queue),
//     then prints "filled" and exits
//   node driver.mjs work <host> <port> <queue> <concurrency>
//     runs the queue's jobs with one Worker of <concurrency>; prints "ready" once connected and,
//     when its standard input ends, closes the worker and prints "ran <jobs run>"
// Completed jobs are removed at once (removeOnComplete), as Lockstep keeps only a small record of
// a finished task: BullMQ's default keeps every completed job for ever.
import { Queue, Worker } from 'bullmq';

const [mode, host, port, name, first, second] = process.argv.slice(2);
const connection = { host, port: Number(port), maxRetriesPerRequest: null };
const jobOptions = { removeOnComplete: true, removeOnFail: 1000 };

if (mode === 'fill') {
  const tasks = Number(first);
  const groups = Number(second);
  const queue = new Queue(name, { connection });
  let next = 0;
  const submitter = async () => {
    for (let i = next++; i < tasks; i = next++) {
      await queue.add('task', { group: i % groups, sequence: i, workMicros: 0, submittedMicros: Date.now() * 1000 },
        jobOptions);
    }
  };
  await Promise.all(Array.from({ length: 16 }, submitter));
  await queue.close();
  console.log('filled');
  process.exit(0);
} else if (mode === 'work') {
  let ran = 0;
  const worker = new Worker(name, async () => {
    ran++;
  }, { connection, concurrency: Number(first) });
  await worker.waitUntilReady();
  console.log('ready');
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await worker.close();
    console.log('ran ' + ran);
    process.exit(0);
  });
} else {
  console.error('unknown mode ' + mode);
  process.exit(2);
}
