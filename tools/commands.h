/* The fp8attn tool's commands. Each takes the arguments after the command name (argv[0] is the
 * command name) and returns the process exit code: 0 success, 1 a gate/check failed,
 * 2 bad arguments, unusable inputs or a run that failed (a CUDA error, a CPU backend failure). */
#ifndef FP8ATTN_TOOL_COMMANDS_H
#define FP8ATTN_TOOL_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_resources(int argc, char **argv);

#endif
