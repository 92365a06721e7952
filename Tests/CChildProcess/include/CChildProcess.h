// headingd — CChildProcess: glibc's pipe2 and posix_spawn extensions that Swift's Glibc module does not
// show (they are declared only under _GNU_SOURCE / __USE_MISC), for the tests' child processes.
// SPDX-License-Identifier: Apache-2.0
#ifndef HEADINGD_CCHILDPROCESS_H
#define HEADINGD_CCHILDPROCESS_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np(3): the child closes every descriptor from `from` on,
/// at the moment it starts — so it inherits none of the test runner's, whichever thread made them.
int cchild_process_add_close_from(posix_spawn_file_actions_t *_Nonnull actions, int from);

/// posix_spawn_file_actions_addchdir_np(3): the child starts in `directory`.
int cchild_process_add_chdir(posix_spawn_file_actions_t *_Nonnull actions, const char *_Nonnull directory);

/// pipe2(2) with O_CLOEXEC: a pipe no child inherits unless it is handed on as 0, 1 or 2.
int cchild_process_pipe(int ends[_Nonnull 2]);

#endif
