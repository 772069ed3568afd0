"""Operations harnesses: commands' helpers that start real worker processes and hosts and check what they
recorded (`killtest`, `multihost`). They sit beside `bench/`, above the runtime they exercise."""
