package awstest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// LaunchTemplate is a launch template the EC2 server knows; it starts with
// version 1 (the default version) holding ImageID and InstanceType.
type LaunchTemplate struct {
	ID           string
	Name         string
	ImageID      string
	InstanceType string
	// IAMInstanceProfileARN or IAMInstanceProfileName is the instance
	// profile (iamInstanceProfile); UserData is the base64 user data.
	IAMInstanceProfileARN, IAMInstanceProfileName string
	UserData                                      string
}

// LaunchTemplateData is what one launch-template version says.
type LaunchTemplateData struct {
	ImageID      string
	InstanceType string
	// IAMInstanceProfileARN, IAMInstanceProfileName and UserData as in
	// LaunchTemplate; a new version copies them from its source.
	IAMInstanceProfileARN, IAMInstanceProfileName string
	UserData                                      string
}

// LaunchTemplateVersionInfo is one version of a launch template.
type LaunchTemplateVersionInfo struct {
	Number        int
	SourceVersion int // 0 for version 1
	Description   string
	Data          LaunchTemplateData
	Created       time.Time
}

type launchTemplate struct {
	LaunchTemplate
	versions       []LaunchTemplateVersionInfo // versions[i].Number == i+1
	defaultVersion int
}

type tokenUse struct {
	templateID string
	request    string // the request's parameters, to detect a mismatch
	version    int
}

// AddLaunchTemplate makes a launch template known, with version 1.
func (s *EC2) AddLaunchTemplate(lt LaunchTemplate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.templates[lt.ID] = &launchTemplate{
		LaunchTemplate: lt,
		versions: []LaunchTemplateVersionInfo{{
			Number: 1, Data: LaunchTemplateData{ImageID: lt.ImageID, InstanceType: lt.InstanceType,
				IAMInstanceProfileARN: lt.IAMInstanceProfileARN, IAMInstanceProfileName: lt.IAMInstanceProfileName, UserData: lt.UserData},
			Created: time.Now(),
		}},
		defaultVersion: 1,
	}
}

// LaunchTemplateVersions returns every version of a launch template.
func (s *EC2) LaunchTemplateVersions(id string) []LaunchTemplateVersionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	lt, ok := s.templates[id]
	if !ok {
		return nil
	}
	return append([]LaunchTemplateVersionInfo(nil), lt.versions...)
}

// resolveLaunchTemplate returns the version number and data that id and
// version ("3", "$Latest", "$Default") name.
func (s *EC2) resolveLaunchTemplate(id, version string) (int, LaunchTemplateData, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lt, ok := s.templates[id]
	if !ok {
		return 0, LaunchTemplateData{}, fmt.Errorf("launch template %s does not exist", id)
	}
	n, err := lt.resolve(version)
	if err != nil {
		return 0, LaunchTemplateData{}, err
	}
	return n, lt.versions[n-1].Data, nil
}

func (lt *launchTemplate) resolve(version string) (int, error) {
	switch version {
	case "$Latest":
		return len(lt.versions), nil
	case "$Default", "":
		return lt.defaultVersion, nil
	}
	n, err := strconv.Atoi(version)
	if err != nil || n < 1 || n > len(lt.versions) {
		return 0, fmt.Errorf("launch template %s has no version %q", lt.ID, version)
	}
	return n, nil
}

// templateFor finds the template a request names by id or name; s.mu is held.
func (s *EC2) templateFor(form url.Values) (*launchTemplate, *Fault) {
	id, name := form.Get("LaunchTemplateId"), form.Get("LaunchTemplateName")
	for _, lt := range s.templates {
		if (id != "" && lt.ID == id) || (id == "" && name != "" && lt.Name == name) {
			return lt, nil
		}
	}
	if id == "" && name == "" {
		return nil, &Fault{Status: http.StatusBadRequest, Code: "MissingParameter", Message: "The request must contain the parameter LaunchTemplateId or LaunchTemplateName"}
	}
	return nil, &Fault{Status: http.StatusBadRequest, Code: "InvalidLaunchTemplateId.NotFound",
		Message: fmt.Sprintf("The specified launch template, with template ID %s, does not exist.", id)}
}

func (s *EC2) createLaunchTemplateVersion(w http.ResponseWriter, form url.Values) {
	s.mu.Lock()
	lt, fault := s.templateFor(form)
	if fault != nil {
		s.mu.Unlock()
		writeEC2Error(w, *fault)
		return
	}
	request := form.Get("SourceVersion") + "|" + form.Get("LaunchTemplateData.ImageId") + "|" + form.Get("LaunchTemplateData.InstanceType") + "|" + form.Get("VersionDescription")
	token := form.Get("ClientToken")
	if use, ok := s.tokens[token]; ok && token != "" {
		s.mu.Unlock()
		if use.templateID != lt.ID || use.request != request {
			writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "IdempotentParameterMismatch",
				Message: "The client token you have provided is associated with a resource that is already deleted or has different parameters."})
			return
		}
		s.writeVersion(w, lt.ID, use.version)
		return
	}
	data := LaunchTemplateData{}
	source := 0
	if sv := form.Get("SourceVersion"); sv != "" {
		n, err := lt.resolve(sv)
		if err != nil {
			s.mu.Unlock()
			writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidLaunchTemplateId.VersionNotFound", Message: err.Error()})
			return
		}
		data, source = lt.versions[n-1].Data, n
	}
	if v := form.Get("LaunchTemplateData.ImageId"); v != "" {
		data.ImageID = v
	}
	if v := form.Get("LaunchTemplateData.InstanceType"); v != "" {
		data.InstanceType = v
	}
	n := len(lt.versions) + 1
	lt.versions = append(lt.versions, LaunchTemplateVersionInfo{
		Number: n, SourceVersion: source, Description: form.Get("VersionDescription"), Data: data, Created: time.Now(),
	})
	if token != "" {
		s.tokens[token] = tokenUse{templateID: lt.ID, request: request, version: n}
	}
	s.mu.Unlock()
	s.writeVersion(w, lt.ID, n)
}

func (s *EC2) writeVersion(w http.ResponseWriter, id string, n int) {
	s.mu.Lock()
	lt := s.templates[id]
	x := xmlTemplateVersionOf(lt, lt.versions[n-1])
	s.mu.Unlock()
	writeXML(w, createLaunchTemplateVersionResponse{RequestID: requestID(), Version: x})
}

func (s *EC2) describeLaunchTemplateVersions(w http.ResponseWriter, form url.Values) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lt, fault := s.templateFor(form)
	if fault != nil {
		writeEC2Error(w, *fault)
		return
	}
	resp := describeLaunchTemplateVersionsResponse{RequestID: requestID()}
	names := indexed(form, "LaunchTemplateVersion")
	if len(names) == 0 {
		for _, v := range lt.versions {
			resp.Versions = append(resp.Versions, xmlTemplateVersionOf(lt, v))
		}
	}
	for _, name := range names {
		n, err := lt.resolve(name)
		if err != nil {
			writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidLaunchTemplateId.VersionNotFound",
				Message: fmt.Sprintf("Could not find launch template version %s for launch template %s.", name, lt.ID)})
			return
		}
		resp.Versions = append(resp.Versions, xmlTemplateVersionOf(lt, lt.versions[n-1]))
	}
	writeXML(w, resp)
}

func xmlTemplateVersionOf(lt *launchTemplate, v LaunchTemplateVersionInfo) xmlTemplateVersion {
	return xmlTemplateVersion{
		ID: lt.ID, Name: lt.Name, Number: v.Number, Description: v.Description,
		Default: v.Number == lt.defaultVersion, Created: v.Created.UTC().Format(time.RFC3339),
		CreatedBy: "arn:aws:iam::111122223333:role/awstest",
		Data:      xmlTemplateDataOf(v.Data),
	}
}

func xmlTemplateDataOf(d LaunchTemplateData) xmlTemplateData {
	x := xmlTemplateData{ImageID: d.ImageID, InstanceType: d.InstanceType, UserData: d.UserData}
	if d.IAMInstanceProfileARN != "" || d.IAMInstanceProfileName != "" {
		x.Profile = &xmlProfileSpec{ARN: d.IAMInstanceProfileARN, Name: d.IAMInstanceProfileName}
	}
	return x
}

type createLaunchTemplateVersionResponse struct {
	XMLName   xml.Name           `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ CreateLaunchTemplateVersionResponse"`
	RequestID string             `xml:"requestId"`
	Version   xmlTemplateVersion `xml:"launchTemplateVersion"`
}

type describeLaunchTemplateVersionsResponse struct {
	XMLName   xml.Name             `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribeLaunchTemplateVersionsResponse"`
	RequestID string               `xml:"requestId"`
	Versions  []xmlTemplateVersion `xml:"launchTemplateVersionSet>item"`
}

type xmlTemplateVersion struct {
	ID          string          `xml:"launchTemplateId"`
	Name        string          `xml:"launchTemplateName"`
	Number      int             `xml:"versionNumber"`
	Description string          `xml:"versionDescription,omitempty"`
	Default     bool            `xml:"defaultVersion"`
	Created     string          `xml:"createTime"`
	CreatedBy   string          `xml:"createdBy"`
	Data        xmlTemplateData `xml:"launchTemplateData"`
}

type xmlTemplateData struct {
	ImageID      string          `xml:"imageId,omitempty"`
	InstanceType string          `xml:"instanceType,omitempty"`
	Profile      *xmlProfileSpec `xml:"iamInstanceProfile,omitempty"`
	UserData     string          `xml:"userData,omitempty"`
}

type xmlProfileSpec struct {
	ARN  string `xml:"arn,omitempty"`
	Name string `xml:"name,omitempty"`
}
