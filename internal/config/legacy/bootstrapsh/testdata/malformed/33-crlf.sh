#!/bin/bash
# want: warning line 1: the script has CRLF (Windows) line endings
/etc/eks/bootstrap.sh my-cluster
