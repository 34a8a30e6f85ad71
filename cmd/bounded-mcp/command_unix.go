//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own, so that stopping it
// stops what it started too (npx's node, a shell's children).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeath(cmd.SysProcAttr)
}

// killGroup signals cmd's process group: SIGKILL when hard, else SIGTERM.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	syscall.Kill(-cmd.Process.Pid, sig)
}
