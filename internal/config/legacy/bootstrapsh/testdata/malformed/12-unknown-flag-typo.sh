#!/bin/bash
# want: error line 3: unknown bootstrap.sh option --mount-bfs-fs; did you mean --mount-bpf-fs?
/etc/eks/bootstrap.sh my-cluster --mount-bfs-fs true
