/**
 * Preloaded (`node --import tsx --import ./bench/orphan-guard.mjs ...`, or before the bundle) into every server the
 * benchmark starts. The benchmark spawns its children with an IPC channel; when that channel
 * closes (the benchmark exited, crashed or was killed with SIGKILL), the child shuts itself down
 * instead of lingering as an orphan holding a port and a data directory.
 */
if (typeof process.send === 'function' && process.channel) {
  process.channel.unref(); // the channel alone must not keep the process alive
  process.once('disconnect', () => {
    // Chipin shuts down gracefully on SIGTERM; force the exit if that takes too long.
    setTimeout(() => process.exit(1), 5_000).unref();
    process.kill(process.pid, 'SIGTERM');
  });
}
