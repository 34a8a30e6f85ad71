package main

import "syscall"

// setParentDeath has the kernel end the upstream if the proxy dies
// without stopping it.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
