//go:build !unix

package main

import "os/exec"

func setGroup(*exec.Cmd) {}

// killGroup kills cmd's process; there is no group to signal.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
