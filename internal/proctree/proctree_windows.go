package proctree

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Tree is a started command's Job Object. The job is created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when pi-rpc exits, however it exits, Windows closes the
// handle and ends every process still in the job.
type Tree struct {
	mu  sync.Mutex
	job windows.Handle // 0 once released: a late Kill must not reach a reused handle
}

// Prepare creates the process suspended when suspended is set, so that [Attach] puts it in
// its job before it can start a child (a child started before that would not be in the job).
// Without it (a process whose start the caller does not control, an MCP server started by
// the SDK), the window between the start and [Attach] is the process's own start-up time.
func Prepare(attr *syscall.SysProcAttr, suspended bool) {
	if suspended {
		attr.CreationFlags |= windows.CREATE_SUSPENDED
	}
}

// Attach creates a Job Object, assigns p to it and, when p was created suspended, resumes it.
// On failure a suspended p is killed, since it could not run confined to its job.
func Attach(p *os.Process, suspended bool) (*Tree, error) {
	t, err := attach(p, suspended)
	if err != nil && suspended {
		_ = p.Kill()
	}
	return t, err
}

func attach(p *os.Process, suspended bool) (*Tree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("CreateJobObject: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(p.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("OpenProcess: %w", err)
	}
	defer func() { _ = windows.CloseHandle(h) }()
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	if suspended {
		if err := resumeProcess(h); err != nil {
			_ = windows.TerminateJobObject(job, 1)
			_ = windows.CloseHandle(job)
			return nil, fmt.Errorf("NtResumeProcess: %w", err)
		}
	}
	return &Tree{job: job}, nil
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// resumeProcess resumes every thread of a process created with CREATE_SUSPENDED (os/exec
// keeps no handle to its main thread, so ResumeThread cannot be used).
func resumeProcess(h windows.Handle) error {
	if err := ntResumeProcess.Find(); err != nil {
		return err
	}
	r, _, _ := ntResumeProcess.Call(uintptr(h))
	if r != 0 {
		return windows.NTStatus(r)
	}
	return nil
}

// exitKilled is the exit code of the processes TerminateJobObject ends (1, as taskkill /F).
const exitKilled = 1

// Terminate ends every process in the job: Windows has no request to end that a console
// program could catch, so it is the same as [Tree.Kill].
func (t *Tree) Terminate() { t.Kill() }

// Kill ends every process in the job (TerminateJobObject).
func (t *Tree) Kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, exitKilled)
	}
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type basicAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// Alive reports whether any process of the job is still running.
func (t *Tree) Alive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.job != 0 && jobAlive(t.job)
}

func jobAlive(job windows.Handle) bool {
	n, err := activeProcesses(job)
	return err == nil && n > 0
}

func activeProcesses(job windows.Handle) (uint32, error) {
	var info basicAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, err
	}
	return info.ActiveProcesses, nil
}

// lingering holds the jobs released while processes were still running in them (a server
// started with "&" outlives the command that started it, as on Unix). Their handles stay open
// so those processes live until pi-rpc exits, when kill-on-close ends them; jobs found empty
// are closed on the next Release.
var lingering struct {
	sync.Mutex
	jobs []windows.Handle
}

// Release closes the job if nothing runs in it any more, else keeps it until pi-rpc exits.
func (t *Tree) Release() {
	t.mu.Lock()
	job := t.job
	t.job = 0
	t.mu.Unlock()
	if job == 0 {
		return
	}
	lingering.Lock()
	defer lingering.Unlock()
	kept := lingering.jobs[:0]
	for _, j := range lingering.jobs {
		if jobAlive(j) {
			kept = append(kept, j)
		} else {
			_ = windows.CloseHandle(j)
		}
	}
	lingering.jobs = kept
	if jobAlive(job) {
		lingering.jobs = append(lingering.jobs, job)
		return
	}
	_ = windows.CloseHandle(job)
}
